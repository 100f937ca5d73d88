"""The warehouse sample (sample_programs/warehouse.py) declared with type hints: the same
Program. It reuses the data sample's stock helpers (loaded from ../warehouse.py); its
`--store` is the callback's, shared by every command.

    python sample_programs/typed/warehouse.py items list --limit 5 --json
"""

import os
import runpy
from typing import Annotated, Optional, TypedDict

from workbench import Fail, run
from workbench.typed import App, Arg, Opt

_data = runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "warehouse.py"))
_load, _save, _item, _add_counts, Stock = (_data[name] for name in (
    "_load", "_save", "_item", "_add_counts", "Stock"))

Store = Annotated[Optional[str], Opt(
    "JSON file holding the stock (default: a fresh demo stock in memory)",
    env="WAREHOUSE_FILE")]
Sku = Annotated[str, Opt("the item's SKU", aliases=["item"], placeholder="<sku>")]
Bin = Annotated[Optional[str], Opt("only bins starting with this")]


class Item(TypedDict):
    sku: str
    name: str
    count: int
    bin: str


NOT_FOUND = {"code": "not_found", "exit": 3, "when": "no item has that SKU"}
UNAVAILABLE = {"code": "storage_unavailable", "exit": 7, "when": "the stock file cannot be read"}
NO_STOCK = {"code": "insufficient_stock", "exit": 5, "when": "fewer in stock than ordered"}

app = App("warehouse", version="2.1.0", description="Track stock, orders and restocks",
          schema_version="2", output_budget=1500)


@app.callback()
def open_stock(ctx, store: Store = None):
    """Runs before every command: the stock `--store` names, for the handler as `ctx.obj`."""
    ctx.obj = Stock(store)


@app.command(effects="read_only", examples=["warehouse export --format ndjson"],
             errors=[UNAVAILABLE])
def export(ctx, fail_at: Annotated[Optional[int], Opt(min=1)] = None):
    """Stream every item, one per line

    Args:
        fail_at: fail at this item (to try a stream that breaks)
    """
    items = _load(ctx)["items"]
    for index, item in enumerate(items, 1):
        if fail_at and index == fail_at:
            raise Fail("storage_unavailable", f"the stock file became unreadable at item {index}",
                       exit=7, retryable=True, hint="retry the export")
        ctx.progress(index, len(items))
        yield item


items = app.group("items", "Items in stock")


@items.command("list", effects="read_only", paginated=50,
               examples=["warehouse items list --limit 3",
                         "warehouse items list --fields sku,count"])
def list_items(ctx, bin: Bin = None) -> list[Item]:
    """List items, a page at a time"""
    return [i for i in _load(ctx)["items"] if not bin or i["bin"].startswith(bin)]


def restock_plan(ctx, sku, count):
    item = _item(_load(ctx), sku)
    return {"sku": item["sku"], "from": item["count"], "to": item["count"] + count}


@items.command(effects="non_idempotent", plan=restock_plan, errors=[NOT_FOUND],
               examples=["warehouse items restock --sku SKU-0003 --count 5 --dry-run"])
def restock(ctx, sku: Sku, count: Annotated[int, Opt("how many to add", min=1)]):
    """Add stock to an item (plan first)"""
    state = _load(ctx)
    plan = ctx.plan or restock_plan(ctx, sku, count)
    _item(state, plan["sku"])["count"] = plan["to"]
    _save(ctx, state)
    return plan


@items.command("import", effects="non_idempotent", batch=True,
               examples=["warehouse items import SKU-0001=3 SKU-9999=1 SKU-0002=x"])
def import_items(ctx, lines: Annotated[list[str], Arg("SKU=COUNT pairs")]):
    """Add counts from SKU=COUNT lines"""
    return _add_counts(ctx, lines)


@items.command(effects="read_only", verdict=True,
               examples=["warehouse items audit --min 0", "warehouse items audit --min 1"])
def audit(ctx, min: Annotated[int, Opt("the fewest each item should have", min=0)] = 1):
    """Check every item has a minimum in stock"""
    return _data["audit"](ctx)


@items.command(effects="read_only", errors=["limit_reached"],
               examples=["warehouse items find --name bolt --want 5 --max-scan 20",
                         "warehouse items find --name hinge --want 2"])
def find(ctx, name: Annotated[str, Opt("text the item's name holds")],
         want: Annotated[int, Opt("how many matches to find", min=1)] = 5,
         max_scan: Annotated[int, Opt("the most items to look at", min=1)] = 20):
    """Find items by name, looking at a limited number"""
    return _data["find_items"](ctx)


orders = app.group("orders", "Customer orders")


@orders.command(effects="non_idempotent", errors=[NOT_FOUND, NO_STOCK], examples=[
    "warehouse orders create --sku SKU-0002 --quantity 1 --idempotency-key order-42"])
def create(ctx, sku: Sku, quantity: Annotated[int, Opt(min=1)] = 1):
    """Take items out of stock for an order

    Args:
        quantity: how many
    """
    state = _load(ctx)
    item = _item(state, sku)
    if item["count"] < quantity:
        raise Fail("insufficient_stock", f"only {item['count']} of {item['sku']} in stock", exit=5)
    item["count"] -= quantity
    order = {"order": len(state["orders"]) + 1, "sku": item["sku"], "quantity": quantity}
    state["orders"].append(order)
    _save(ctx, state)
    return order


@app.command(effects="read_only", deprecated="since 2.0", replaced_by="items list", since="1.0",
             examples=["warehouse stock"])
def stock(ctx, bin: Bin = None):
    """Show the first items in stock"""
    return list_items(ctx, bin)[:10]


if __name__ == "__main__":
    run(app)
