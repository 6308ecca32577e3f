/** The one number format: four significant digits, a true minus, one exponent style. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatFull, formatScalar, formatShort, normalizeNumbers } from "../src/common/format";

test("integers and ordinary numbers", () => {
  assert.equal(formatScalar(-24), "−24");
  assert.equal(formatScalar(36), "36");
  assert.equal(formatScalar(-0), "0");
  assert.equal(formatScalar(0.5), "0.5");
  assert.equal(formatScalar(-10.2734), "−10.27");
  assert.equal(formatScalar(-18.666666), "−18.67");
  assert.equal(formatScalar(123456.7), "123500");
});

test("one exponent style, minus signs all true minus", () => {
  assert.equal(formatScalar(-7.29e-4), "−7.29e−4");
  assert.equal(formatScalar(5.81e-4), "5.81e−4");
  assert.equal(formatScalar(1.23456e-7), "1.235e−7");
  assert.equal(formatScalar(2.5e6), "2.5e6");
  assert.equal(formatScalar(-2.5e7), "−2.5e7");
  assert.doesNotMatch(formatShort([-7.29e-4, 5.81e-4, -1e-9]), /-/);
});

test("non-finite values", () => {
  assert.equal(formatScalar("NaN"), "NaN");
  assert.equal(formatScalar("-Infinity"), "−∞");
  assert.equal(formatScalar(Number.POSITIVE_INFINITY), "∞");
  assert.equal(formatScalar(Number.NaN), "NaN");
});

test("short and full forms of tensors", () => {
  assert.equal(formatShort([1, -2]), "[1, −2]");
  assert.equal(formatShort([1, 2, 3, 4, 5]), "[1, 2, 3, … 5 values]");
  assert.equal(formatFull([[1, -2], [3, 4.5]]), "[[1, −2], [3, 4.5]]");
  assert.equal(formatShort({ shape: [100], min: -1, max: 2, mean: 0.25, preview: [1] }), "μ 0.25 [−1, 2]");
  assert.equal(formatShort(null), "—");
});

test("numbers inside formula text take the same format", () => {
  assert.equal(normalizeNumbers("∂L/∂w = x · ∂L/∂p = 2 · (−12) = −24"), "∂L/∂w = x · ∂L/∂p = 2 · (−12) = −24");
  assert.equal(normalizeNumbers("w.grad = 5.810e-04 → −7.290e−04"), "w.grad = 5.81e−4 → −7.29e−4");
  assert.equal(normalizeNumbers("∂L/∂w += n1 · ∂L/∂(w · n1)  → −36.70"), "∂L/∂w += n1 · ∂L/∂(w · n1)  → −36.7");
  // Names, indices and powers are not numbers.
  assert.equal(normalizeNumbers("2·sub#6^1 · model.4.weight + linear#11"), "2·sub#6^1 · model.4.weight + linear#11");
  assert.equal(normalizeNumbers("model[0](X) − 1.50"), "model[0](X) − 1.5");
});
