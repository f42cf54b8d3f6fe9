// A matrix of the table drawn as a heatmap, with its hover and its exports.
#include <map>
#include <string>
#include <tuple>

#include "app/platform/platform.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

HeatmapResult draw_matrix(AppState& s, Heatmaps& h, MatrixKind k, int head, int batch,
                          const MatrixDraw& d) {
  const MatrixInfo& info = matrix_info(k);
  const attn::Matrix* m = d.values ? d.values : matrix_of(s, k, head, batch);
  if (!m) return HeatmapResult{};
  // Transposed, a matrix is copied once per revision, not every frame (4096 × 4096 is 64 MB).
  struct Transposed {
    const attn::Matrix* source = nullptr;
    uint64_t revision = 0;
    int kind = -1, head = -1, batch = -1;
    attn::Matrix values;
  };
  static std::map<std::string, Transposed> transposed;
  const attn::Matrix* cached = nullptr;
  if (d.transpose) {
    Transposed& t = transposed[d.id];
    if (t.source != m || t.revision != s.revision || t.kind != static_cast<int>(k) ||
        t.head != head || t.batch != batch || t.values.rows() != m->cols() ||
        t.values.cols() != m->rows()) {
      t.values = m->transpose();
      t.source = m;
      t.revision = s.revision;
      t.kind = static_cast<int>(k);
      t.head = head;
      t.batch = batch;
    }
    cached = &t.values;
  } else {
    transposed.erase(d.id);
  }
  const DrawnMatrix drawn = drawn_matrix(s, info, *m, d.masked ? matrix_mask(s, k, batch) : nullptr,
                                         batch, d.transpose, cached);
  const ValueRange range = d.values ? d.values_range : matrix_range(s, k, head, batch);
  attn::Matrix shown_t;  // a transition's values, transposed
  if (d.shown && d.transpose) shown_t = d.shown->transpose();
  HeatmapSpec spec;
  spec.id = d.id;
  spec.values = d.shown ? (d.transpose ? &shown_t : d.shown) : &drawn.values();
  spec.layout_values = &drawn.values();
  spec.mask = drawn.mask();
  spec.row_labels = &drawn.row_labels;
  spec.col_labels = &drawn.col_labels;
  if (d.axis_names) {
    spec.row_axis = T(d.transpose ? "keys" : "queries");
    spec.col_axis = T(d.transpose ? "queries" : "keys");
  }
  spec.palette = info.palette;
  spec.fixed_range = range.fixed;
  spec.lo = range.lo;
  spec.hi = range.hi;
  spec.size = d.size;
  spec.max_cell_px = d.max_cell_px;
  spec.max_aspect = d.max_aspect;
  spec.numbers = s.show_numbers;
  // A column or two of up to 24 rows (a regression's x and y, say) keeps its numbers too,
  // scrolling when the height is short: beside it the line has room, so unnumbered cells
  // would hide what is cheap to show.
  const bool narrow = drawn.values().cols() <= 2 && drawn.values().rows() <= 24;
  spec.keep_numbers = (d.keep_numbers || narrow) && s.show_numbers;
  spec.editable = d.editable;
  spec.legend = d.legend;
  std::tie(spec.highlight_row, spec.highlight_col) =
      drawn.to_drawn(d.highlight_row, d.highlight_col);
  // A transition's values change every frame: a revision of their own for the renderer. The
  // transposed drawing of the same values is another texture.
  spec.revision =
      (d.shown ? (1ull << 63) | static_cast<uint64_t>(ImGui::GetFrameCount()) : s.revision) ^
      (d.transpose ? 1ull << 62 : 0);
  // A PNG is the picture as drawn: a transposed one says so in its name.
  spec.export_name = export_stem(k, head, batch) + (d.transpose ? "_transposed" : "");
  spec.hidden = answer_hidden(s, k);
  if (spec.hidden) {
    spec.editable = false;
    spec.exportable = false;
  }

  if (d.caption) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(d.caption);  // the UI font: its O is not the monospaced 0
  }
  HeatmapResult r = h.draw(spec);
  if (d.caption) ImGui::EndGroup();
  // Back to the matrix's own rows and columns: the hover names the right query and key, a
  // click masks the right cell and an edit changes it.
  std::tie(r.row, r.col) = drawn.to_matrix(r.row, r.col);
  std::tie(r.edit_row, r.edit_col) = drawn.to_matrix(r.edit_row, r.edit_col);
  if (r.hovered) set_hover(s, CellRef{k, head, batch, r.row, r.col}, r);
  if (r.export_request == ExportRequest::kCsv || r.export_request == ExportRequest::kJson) {
    const bool csv = r.export_request == ExportRequest::kCsv;
    if (s.in_page && !d.values && m->size() > kExportInPartsNumbers) {
      // Long: the page writes it in parts between frames, with its progress, and downloads it.
      s.events.push_back(std::string("export_file|") + info.id + "|" + (csv ? "csv" : "json") +
                         "|" + std::to_string(head) + "|" + std::to_string(batch));
    } else {
      // In the row convention, as every export is, drawn transposed or not.
      const std::vector<std::string> rows =
          axis_labels(s, info.rows, batch, static_cast<int>(m->rows()));
      const std::vector<std::string> cols =
          axis_labels(s, info.cols, batch, static_cast<int>(m->cols()));
      deliver(s,
              export_values(*m, rows, cols, export_stem(k, head, batch),
                            csv ? ExportFormat::kCsv : ExportFormat::kJson),
              true);
    }
  }
  return r;
}

HeatmapResult draw_heatmap(AppState& s, Heatmaps& h, const HeatmapSpec& spec) {
  const HeatmapResult r = h.draw(spec);
  const bool csv = r.export_request == ExportRequest::kCsv;
  if ((csv || r.export_request == ExportRequest::kJson) && spec.values) {
    static const std::vector<std::string> kNone;
    deliver(s,
            export_values(*spec.values, spec.row_labels ? *spec.row_labels : kNone,
                          spec.col_labels ? *spec.col_labels : kNone,
                          spec.export_name.empty() ? std::string(spec.id) : spec.export_name,
                          csv ? ExportFormat::kCsv : ExportFormat::kJson),
            true);
  }
  return r;
}

void set_hover(AppState& s, const CellRef& c, const HeatmapResult& r) {
  s.hover = c;
  s.hover_cell[0] = r.cell_min.x;
  s.hover_cell[1] = r.cell_min.y;
  s.hover_cell[2] = r.cell_max.x;
  s.hover_cell[3] = r.cell_max.y;
}

void deliver_exports(AppState& s) {
  for (const std::string& what : s.exports_due) {
    if (what == "link") {
      s.emit("copy_link");                       // the page knows its address
    } else if (what.rfind("matrix|", 0) == 0) {  // the step's matrix: "matrix|csv"
      deliver(s,
              make_export(s, matrix_info(step_matrix(s.step)).id, what.substr(7), s.head, s.batch),
              true);
    } else {
      deliver(s, make_export(s, what, "", s.head, s.batch), true);
    }
  }
  s.exports_due.clear();
}

void deliver(AppState& s, const Export& e, bool copy) {
  if (!e.ok()) {
    s.notice = e.error;
    return;
  }
  deliver_export(e.filename, e.mime, e.data, copy);
}

}  // namespace ui
