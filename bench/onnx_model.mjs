// A minimal ONNX ModelProto writer (protobuf wire format) for the benchmark's two graphs.
//
// Only the fields the graphs need: ModelProto{ir_version, opset_import, producer_name, graph},
// GraphProto{node, name, initializer, input, output}, NodeProto, AttributeProto (int),
// ValueInfoProto with a fixed float tensor shape, and a scalar float TensorProto.

function varint(value) {
  const out = [];
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n;  // int64 fields: two's complement, 10 bytes
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

const key = (field, wire) => varint((field << 3) | wire);
const bytes = (x) => (typeof x === "string" ? [...Buffer.from(x, "utf8")] : [...x]);
const lengthDelimited = (field, payload) => {
  const b = bytes(payload);
  return [...key(field, 2), ...varint(b.length), ...b];
};
const integer = (field, n) => [...key(field, 0), ...varint(n)];

const FLOAT = 1;  // TensorProto.DataType.FLOAT
const ATTRIBUTE_INT = 2;  // AttributeProto.AttributeType.INT

export function valueInfo(name, dims) {
  const shape = dims.flatMap((d) => lengthDelimited(1, integer(1, d)));
  const tensorType = [...integer(1, FLOAT), ...lengthDelimited(2, shape)];
  return [...lengthDelimited(1, name), ...lengthDelimited(2, lengthDelimited(1, tensorType))];
}

export function intAttribute(name, value) {
  return [...lengthDelimited(1, name), ...integer(3, value), ...integer(20, ATTRIBUTE_INT)];
}

export function node(opType, inputs, outputs, attributes = [], domain = "") {
  return [
    ...inputs.flatMap((i) => lengthDelimited(1, i)),
    ...outputs.flatMap((o) => lengthDelimited(2, o)),
    ...lengthDelimited(3, `${opType}_${outputs[0]}`),
    ...lengthDelimited(4, opType),
    ...attributes.flatMap((a) => lengthDelimited(5, a)),
    ...(domain ? lengthDelimited(7, domain) : []),
  ];
}

export function scalarInitializer(name, value) {
  const raw = Buffer.alloc(4);
  raw.writeFloatLE(value);
  return [...integer(2, FLOAT), ...lengthDelimited(8, name), ...lengthDelimited(9, raw)];
}

// opsets: [[domain, version], ...], "" for the default ONNX domain.
export function model({ nodes, initializers = [], inputs, outputs, opsets }) {
  const graph = [
    ...nodes.flatMap((n) => lengthDelimited(1, n)),
    ...lengthDelimited(2, "attention"),
    ...initializers.flatMap((t) => lengthDelimited(5, t)),
    ...inputs.flatMap((v) => lengthDelimited(11, v)),
    ...outputs.flatMap((v) => lengthDelimited(12, v)),
  ];
  const opsetImports = opsets.flatMap(([domain, version]) =>
    lengthDelimited(8, [...(domain ? lengthDelimited(1, domain) : []), ...integer(2, version)]));
  return Uint8Array.from([
    ...integer(1, 8),  // IR version 8
    ...opsetImports,
    ...lengthDelimited(2, "attention-playground-bench"),
    ...lengthDelimited(7, graph),
  ]);
}
