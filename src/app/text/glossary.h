// Words to look up: a short glossary of the terms the steps and lessons use, in the UI's
// languages (the English is the key; src/app/text/i18n.cpp has the Chinese), and which terms each
// pipeline step's text uses, so that every step can offer its own.
#pragma once

#include <vector>

#include "app/text/explain.h"

namespace ui {

struct GlossaryEntry {
  const char* id;    // stable id, e.g. "softmax" (the JS API and the table view use it)
  const char* term;  // English, translated with T()
  const char* text;  // English, translated with T()
};

// Every entry, in the order a learner meets them.
const std::vector<GlossaryEntry>& glossary();
// The entries step s talks about, in the order its text mentions them.
std::vector<const GlossaryEntry*> glossary_for_step(Step s);

}  // namespace ui
