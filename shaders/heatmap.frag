// Heatmap cells: one float per cell from an R32F texture, mapped to colour by a palette of
// evenly spaced stops. Masked cells (R8 mask texture) are hatched grey so they never look
// like a merely small weight; NaN cells get a cross-hatch. Every colour comes from the C++
// side (src/app/widgets/heatmap_renderer.cpp), which also #defines AP_MAX_STOPS.

uniform sampler2D u_values;  // R32F, columns × rows
uniform sampler2D u_mask;    // R8, byte 1 (reads as 1/255) where masked; 1×1 zero when none
uniform ivec2 u_size;        // columns, rows
uniform vec2 u_range;        // value at the first and at the last stop
uniform vec3 u_stops[AP_MAX_STOPS];  // palette, evenly spaced from u_range.x to u_range.y
uniform int u_stop_count;
uniform vec3 u_masked[2];    // masked cells: the grey and its stripes
uniform vec3 u_nan[2];       // NaN cells: the light and the dark of the cross-hatch
uniform vec2 u_cell_px;      // on-screen width and height of a cell in pixels, for grid lines
uniform float u_dpr;         // device pixels per CSS pixel

in vec2 v_cell;
out vec4 frag_color;

vec3 palette(float t) {
  float x = clamp(t, 0.0, 1.0) * float(u_stop_count - 1);
  int i = int(min(floor(x), float(u_stop_count - 2)));
  return mix(u_stops[i], u_stops[i + 1], x - float(i));
}

void main() {
  ivec2 cell = ivec2(floor(v_cell));
  if (cell.x < 0 || cell.y < 0 || cell.x >= u_size.x || cell.y >= u_size.y) discard;
  float value = texelFetch(u_values, cell, 0).r;
  float masked = texelFetch(u_mask, cell, 0).r;
  float stripe = mod(gl_FragCoord.x + gl_FragCoord.y, 8.0 * u_dpr) < 3.0 * u_dpr ? 1.0 : 0.0;
  vec3 color;
  if (masked > 0.5 / 255.0) {
    color = mix(u_masked[0], u_masked[1], stripe);
  } else if (isnan(value)) {
    float cross = mod(gl_FragCoord.x - gl_FragCoord.y, 8.0 * u_dpr) < 3.0 * u_dpr ? 1.0 : 0.0;
    color = mix(u_nan[0], u_nan[1], max(stripe, cross));
  } else {
    float span = u_range.y - u_range.x;
    color = palette(span > 0.0 ? (value - u_range.x) / span : 0.5);
  }
  // Thin grid lines once cells are large enough to tell apart.
  if (min(u_cell_px.x, u_cell_px.y) >= 10.0) {
    vec2 f = fract(v_cell) * u_cell_px;
    if (f.x < 1.0 || f.y < 1.0) color *= 0.82;
  }
  frag_color = vec4(color, 1.0);
}
