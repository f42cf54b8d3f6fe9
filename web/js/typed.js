// Typed arrays handed to setScenario ({shape, data: Float32Array} in place of a matrix of
// numbers), checked against the app's limits (limits(): the fields that may be arrays, the
// sizes, the memory budget) before anything is copied or allocated.
// Pure: tests/web/unit_test.mjs runs it under node.

// A typed field's shape: {sizes, numbers} or {error}. w_v is [n], the others [rows, cols] or
// [batch, rows, cols].
export function checkShape(field, shape, limits) {
  const vector = field === "w_v";
  const form = vector ? "[n]" : "[rows, cols] or [batch, rows, cols]";
  if (!Array.isArray(shape) || shape.length < (vector ? 1 : 2) || shape.length > (vector ? 1 : 3)) {
    return { error: `${field}.shape: must be ${form}` };
  }
  const sizes = [];
  let numbers = 1;
  for (let i = 0; i < shape.length; ++i) {
    const last = shape.length - 1 - i; // 0: columns, 1: rows, 2: batch
    const [limit, what] = [[limits.max_cols, "columns"], [limits.max_rows, "rows"],
                           [limits.max_batch, "batch items"]][last];
    const n = shape[i];
    if (!Number.isInteger(n) || n < 1 || n > limit) {
      return { error: `${field}.shape[${i}]: must be a whole number of ${what} from 1 to ${limit}` };
    }
    sizes.push(n);
    numbers *= n;
  }
  return { sizes, numbers };
}

// The scenario with each {shape, data: Float32Array} field replaced by {shape, buffer: k},
// and the arrays: {json, arrays}, or {error} naming the field. A scenario that is not an
// object is handed on as it is (the app names what is wrong with it).
export function typedFields(scenario, limits) {
  if (scenario === null || typeof scenario !== "object" || Array.isArray(scenario)) {
    return { json: scenario, arrays: [] };
  }
  const arrays = [];
  let json = scenario, total = 0;
  for (const field of limits.array_fields) {
    const v = scenario[field];
    if (v === null || typeof v !== "object" || Array.isArray(v) || !("data" in v)) continue;
    if (!(v.data instanceof Float32Array)) return { error: `${field}.data: must be a Float32Array` };
    const shape = checkShape(field, v.shape, limits);
    if (shape.error) return shape;
    if (v.data.length !== shape.numbers) {
      return { error: `${field}.data: has ${v.data.length} numbers, expected ${shape.numbers} ` +
                      `(the product of the shape [${shape.sizes.join(", ")}])` };
    }
    total += v.data.length;
    if (total * 4 > limits.memory_budget_bytes) {
      return { error: `${field}.data: the typed arrays hold ${total} numbers ` +
                      `(${Math.ceil((total * 4) / 2 ** 20)} MB), more than the ` +
                      `${limits.memory_budget_bytes / 2 ** 20} MB the playground may use` };
    }
    if (json === scenario) json = { ...scenario };
    json[field] = { shape: shape.sizes, buffer: arrays.length };
    arrays.push(v.data);
  }
  return { json, arrays };
}
