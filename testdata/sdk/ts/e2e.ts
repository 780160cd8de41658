// The end-to-end program of `harn tool sdk --lang ts`: the generated
// client of testdata/catalogs/shop.harn (copied next to this file as
// ./shop/) against a live `harn serve mcp`. HARN_BIN names harn and
// SHOP_FILE the module. Each check prints one "ok" line; any failure
// exits non-zero.
import assert from "node:assert/strict";
import {
  Client,
  GetItemApplicationError,
  ToolError,
  ValidationError,
  type Item,
  type ShopError,
} from "./shop/src/index.js";

const client = await Client.stdio({
  file: process.env["SHOP_FILE"] ?? "shop.harn",
  command: process.env["HARN_BIN"] ?? "harn",
  stderr: "ignore",
});
try {
  const item: Item = await client.getItem({ sku: "A-1" });
  assert.equal(item.name, "anvil");
  assert.deepEqual(item.tags, ["heavy"]);
  console.log("ok success: get_item returned a typed Item");

  assert.equal(await client.count({ kind: "book", limit: 4 }), 4);
  assert.equal(await client.count({ kind: "book" }), 10);
  console.log("ok success: a non-object output is unwrapped");

  const tree = await client.categories();
  assert.equal(tree.children[0]?.name, "tools");
  console.log("ok success: a recursive output type");

  try {
    await client.getItem({ sku: "B-2" });
    assert.fail("expected an application error");
  } catch (e) {
    assert.ok(e instanceof GetItemApplicationError, String(e));
    const data: ShopError = e.data;
    if (data.variant !== "OutOfStock") {
      assert.fail(`variant ${data.variant}`);
    }
    const [sku, restockDays] = data.fields;
    assert.equal(sku, "B-2");
    assert.equal(restockDays, 3);
  }
  console.log("ok declared error: caught as ShopError.OutOfStock");

  try {
    await client.getItem({ sku: "Z-9" });
    assert.fail("expected an application error");
  } catch (e) {
    assert.ok(e instanceof GetItemApplicationError);
    assert.equal(e.data.variant, "NotFound");
  }
  console.log("ok declared error: caught as ShopError.NotFound");

  try {
    // @ts-expect-error "car" is not a kind: the compiler refuses it too.
    await client.count({ kind: "car" });
    assert.fail("expected a validation error");
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    assert.match(e.message, /kind/);
  }
  console.log("ok validation: refused before sending");

  const unchecked = await Client.stdio({
    file: process.env["SHOP_FILE"] ?? "shop.harn",
    command: process.env["HARN_BIN"] ?? "harn",
    stderr: "ignore",
    validate: false,
  });
  try {
    // @ts-expect-error as above
    await unchecked.count({ kind: "car" });
    assert.fail("expected the server to refuse");
  } catch (e) {
    assert.ok(e instanceof ToolError && !(e instanceof ValidationError), String(e));
    assert.equal(e.code, -32602);
  } finally {
    await unchecked.close();
  }
  console.log("ok validation off: the server's refusal is a ToolError");
} finally {
  await client.close();
}
