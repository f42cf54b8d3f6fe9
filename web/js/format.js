// Numbers as the canvas prints them, for the page's own text (the table view, the live
// region): the app's printf formats (%d, %s, %.Ng) filled in as C's printf fills them.
// Pure: tests/web/unit_test.mjs runs it under node.

// `format` with each %d, %s, %g or %.Ng replaced by the next value; a conversion with no
// value left stays as written.
export function printf(format, ...values) {
  return String(format).replace(/%(\.\d+)?([dsg])/g, (all, precision, kind) => {
    if (!values.length) return all;
    const v = values.shift();
    if (kind === "d") return String(Math.trunc(v));
    if (kind === "g") return formatG(v, precision ? Number(precision.slice(1)) : 6);
    return String(v);
  });
}

// The exact decimal value of a finite double |x|: {digits, scale}, |x| = digits · 10^-scale
// (digits a string with no leading zeros, "0" for 0). A double is m · 2^E, and 2^-k is
// 5^k · 10^-k, so BigInt gives every digit.
function exactDecimal(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n), fraction = bits & ((1n << 52n) - 1n);
  const m = biased === 0 ? fraction : fraction | (1n << 52n);
  const e = (biased === 0 ? 1 : biased) - 1075;
  if (e >= 0) return { digits: (m << BigInt(e)).toString(), scale: 0 };
  return { digits: (m * 5n ** BigInt(-e)).toString(), scale: -e };
}

// x as C's %.<precision>g writes it: `precision` significant digits (at least 1), rounded
// to nearest with ties to even on the exact value, as C's printf does (JavaScript's
// toPrecision rounds ties up: 0.125 to 2 digits is 0.13 there, 0.12 in C); trailing zeros
// dropped; the exponent form when the exponent is below -4 or at least the precision.
export function formatG(x, precision) {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const p = Math.min(Math.max(1, Math.trunc(precision) || 1), 17);
  const { digits, scale } = exactDecimal(x);
  let exp = digits.length - 1 - scale;  // of the first digit
  let head = digits.slice(0, p).padEnd(p, "0");
  const rest = digits.slice(p);
  const last = Number(head[p - 1]);
  const up = rest.length > 0 && (rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || last % 2 === 1)));
  if (up) {
    head = (BigInt(head) + 1n).toString();
    if (head.length > p) {  // 9.99 → 10.0
      head = head.slice(0, p);
      ++exp;
    }
  }
  const sign = x < 0 ? "-" : "";
  const trim = (text) => (text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text);
  if (exp < -4 || exp >= p) {
    const mantissa = trim(`${head[0]}.${head.slice(1)}`);
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const fixed = exp >= 0 ? `${head.slice(0, exp + 1)}.${head.slice(exp + 1)}` : `0.${"0".repeat(-exp - 1)}${head}`;
  return sign + trim(fixed);
}
