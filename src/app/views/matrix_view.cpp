// A matrix of the table drawn as a heatmap, with its hover and its exports.
#include "app/platform/platform.h"
#include "app/text/i18n.h"
#include "app/views/app.h"

namespace ui {

HeatmapResult draw_matrix(AppState& s, Heatmaps& h, MatrixKind k, int head, int batch,
                          const MatrixDraw& d) {
  const MatrixInfo& info = matrix_info(k);
  const attn::Matrix* m = d.values ? d.values : matrix_of(s, k, head, batch);
  if (!m) return HeatmapResult{};
  const std::vector<std::string> rows =
      axis_labels(s, info.rows, batch, static_cast<int>(m->rows()));
  const std::vector<std::string> cols =
      axis_labels(s, info.cols, batch, static_cast<int>(m->cols()));
  const ValueRange range = d.values ? d.values_range : matrix_range(s, k, head, batch);
  HeatmapSpec spec;
  spec.id = d.id;
  spec.values = d.shown ? d.shown : m;
  spec.layout_values = m;
  spec.mask = d.masked ? matrix_mask(s, k, batch) : nullptr;
  spec.row_labels = &rows;
  spec.col_labels = &cols;
  if (d.axis_names) {
    spec.row_axis = T("queries");
    spec.col_axis = T("keys");
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
  const bool narrow = m->cols() <= 2 && m->rows() <= 24;
  spec.keep_numbers = (d.keep_numbers || narrow) && s.show_numbers;
  spec.editable = d.editable;
  spec.legend = d.legend;
  spec.highlight_row = d.highlight_row;
  spec.highlight_col = d.highlight_col;
  // A transition's values change every frame: a revision of their own for the renderer.
  spec.revision =
      d.shown ? (1ull << 63) | static_cast<uint64_t>(ImGui::GetFrameCount()) : s.revision;
  spec.export_name = export_stem(k, head, batch);
  spec.hidden = answer_hidden(s, k);
  if (spec.hidden) {
    spec.editable = false;
    spec.exportable = false;
  }

  if (d.caption) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(d.caption);  // the UI font: its O is not the monospaced 0
  }
  const HeatmapResult r = h.draw(spec);
  if (d.caption) ImGui::EndGroup();
  if (r.hovered) set_hover(s, CellRef{k, head, batch, r.row, r.col}, r);
  if (r.export_request == ExportRequest::kCsv || r.export_request == ExportRequest::kJson) {
    const bool csv = r.export_request == ExportRequest::kCsv;
    if (s.in_page && !d.values && m->size() > kExportInPartsNumbers) {
      // Long: the page writes it in parts between frames, with its progress, and downloads it.
      s.events.push_back(std::string("export_file|") + info.id + "|" + (csv ? "csv" : "json") +
                         "|" + std::to_string(head) + "|" + std::to_string(batch));
    } else {
      deliver(s,
              export_values(*m, rows, cols, spec.export_name,
                            csv ? ExportFormat::kCsv : ExportFormat::kJson),
              true);
    }
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
