// Heatmap quad: four vertices from gl_VertexID, no vertex buffers. The #version line and
// precision qualifiers are prepended at compile time (GLSL ES 3.00 on WebGL2, 3.30 natively).

uniform vec4 u_rect;  // the quad in normalized device coordinates: x0, y0 (top), x1, y1 (bottom)
uniform vec4 u_view;  // the visible cells: first column, first row, columns, rows (fractional)

out vec2 v_cell;  // position in cell units: x = column, y = row

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  gl_Position = vec4(mix(u_rect.x, u_rect.z, corner.x), mix(u_rect.y, u_rect.w, corner.y), 0.0, 1.0);
  v_cell = u_view.xy + corner * u_view.zw;
}
