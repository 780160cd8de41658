"""The end-to-end program of ``harn tool sdk --lang python``.

The generated client of testdata/catalogs/shop.harn (the package shop_client
next to this file) against a live ``harn serve mcp``. HARN_BIN names harn
and SHOP_FILE the module. Each check prints one "ok" line; any failure
exits non-zero. It needs the ``mcp`` package at run time; mypy --strict
checks it with the generated package either way.
"""

from __future__ import annotations

import asyncio
import os

from shop_client import Client, GetItemApplicationError, ToolError, ValidationError


async def main() -> None:
    harn = os.environ.get("HARN_BIN", "harn")
    shop = os.environ.get("SHOP_FILE", "shop.harn")
    async with Client.stdio(shop, command=harn) as client:
        item = await client.get_item({"sku": "A-1"})
        assert item["name"] == "anvil" and item["tags"] == ["heavy"], item
        print("ok success: get_item returned a typed Item")

        assert await client.count({"kind": "book", "limit": 4}) == 4
        assert await client.count({"kind": "book"}) == 10
        print("ok success: a non-object output is unwrapped")

        tree = await client.categories()
        assert tree["children"][0]["name"] == "tools", tree
        print("ok success: a recursive output type")

        try:
            await client.get_item({"sku": "B-2"})
            raise AssertionError("expected an application error")
        except GetItemApplicationError as e:
            data = e.data
            assert data["variant"] == "OutOfStock", data
            if data["variant"] == "OutOfStock":
                sku, restock_days = data["fields"]
                assert (sku, restock_days) == ("B-2", 3), data
        print("ok declared error: caught as ShopError.OutOfStock")

        try:
            await client.get_item({"sku": "Z-9"})
            raise AssertionError("expected an application error")
        except GetItemApplicationError as e:
            assert e.data["variant"] == "NotFound", e.data
        print("ok declared error: caught as ShopError.NotFound")

        try:
            await client.count({"kind": "car"})  # type: ignore[typeddict-item]
            raise AssertionError("expected a validation error")
        except ValidationError as e:
            assert "kind" in str(e), e
        print("ok validation: refused before sending")

    async with Client.stdio(shop, command=harn, validate=False) as unchecked:
        try:
            await unchecked.count({"kind": "car"})  # type: ignore[typeddict-item]
            raise AssertionError("expected the server to refuse")
        except ValidationError:
            raise
        except ToolError as e:
            assert e.code == -32602, e
        print("ok validation off: the server's refusal is a ToolError")


asyncio.run(main())
