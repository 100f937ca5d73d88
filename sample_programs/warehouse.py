"""A warehouse: the rest of the agent contract in one program.

A streaming export, a paged list, a planned write, a keyed non-idempotent write, a batch with
partial failures, a renamed option and a deprecated command; the stock file is one option of
the program (`--store`, before or after the command's name), opened once by its `setup` for
every command (`ctx.obj`).

    python sample_programs/warehouse.py export --format ndjson
    python sample_programs/warehouse.py items list --limit 5 --json
    python sample_programs/warehouse.py items restock --sku SKU-0003 --count 5 --dry-run --json
    python sample_programs/warehouse.py --store stock.json items list --limit 5
"""

import json
import os

from workbench import Argument, Command, Fail, Group, Option, Program, run

STORE = Option(type="string", env="WAREHOUSE_FILE",
               description="JSON file holding the stock (default: a fresh demo stock in memory)")

ITEM = {"type": "object",
        "properties": {"sku": {"type": "string"}, "name": {"type": "string"},
                       "count": {"type": "integer"}, "bin": {"type": "string"}},
        "required": ["sku", "name", "count", "bin"]}


def _demo():
    names = ("bolt", "nut", "washer", "hinge", "bracket", "spring")
    return {"items": [{"sku": f"SKU-{n:04d}", "name": f"{names[n % len(names)]} {n}",
                       "count": (n * 7) % 23, "bin": f"{chr(65 + n % 6)}{n % 10}"}
                      for n in range(1, 121)],
            "orders": []}


class Stock:
    """The stock file (or a fresh demo stock, without one): what every command works on."""

    def __init__(self, path):
        self.path = path

    def load(self):
        if not self.path or not os.path.exists(self.path):
            return _demo()
        with open(self.path, encoding="utf-8") as handle:
            return json.load(handle)

    def save(self, state):
        if not self.path:
            return
        with open(self.path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(self.path + ".tmp", self.path)


def open_stock(ctx):
    """Runs before every command: the stock `--store` names, for the handler as `ctx.obj`."""
    ctx.obj = Stock(ctx.options.store)


def _load(ctx):
    return ctx.obj.load()


def _save(ctx, state):
    ctx.obj.save(state)


def _item(state, sku):
    for item in state["items"]:
        if item["sku"] == sku:
            return item
    raise Fail("not_found", f"no item {sku}", exit=3, hint="list items to see SKUs",
               fix="items list --fields sku,name")


def export(ctx):
    items = _load(ctx)["items"]
    for index, item in enumerate(items, 1):
        if ctx.options.fail_at and index == ctx.options.fail_at:
            raise Fail("storage_unavailable", f"the stock file became unreadable at item {index}",
                       exit=7, retryable=True, hint="retry the export")
        ctx.progress(index, len(items))
        yield item


def list_items(ctx):
    items = _load(ctx)["items"]
    if ctx.options.bin:
        items = [i for i in items if i["bin"].startswith(ctx.options.bin)]
    return items


def _restock_plan(ctx):
    item = _item(_load(ctx), ctx.options.sku)
    return {"sku": item["sku"], "from": item["count"], "to": item["count"] + ctx.options.count}


def restock(ctx):
    state = _load(ctx)
    plan = ctx.plan or _restock_plan(ctx)
    _item(state, plan["sku"])["count"] = plan["to"]
    _save(ctx, state)
    return plan


def create_order(ctx):
    state = _load(ctx)
    item = _item(state, ctx.options.sku)
    if item["count"] < ctx.options.quantity:
        raise Fail("insufficient_stock", f"only {item['count']} of {item['sku']} in stock", exit=5)
    item["count"] -= ctx.options.quantity
    order = {"order": len(state["orders"]) + 1, "sku": item["sku"],
             "quantity": ctx.options.quantity}
    state["orders"].append(order)
    _save(ctx, state)
    return order


def import_items(ctx):
    return _add_counts(ctx, ctx.args.lines)


def _add_counts(ctx, lines):
    state = _load(ctx)
    succeeded, failed = [], []
    for line in lines:
        sku, _, count = line.partition("=")
        try:
            item = _item(state, sku)
            item["count"] += int(count)
            succeeded.append({"sku": sku, "count": item["count"]})
        except Fail as fail:
            failed.append({"item": line, "code": fail.code, "message": fail.message,
                           "retryable": False})
        except ValueError:
            failed.append({"item": line, "code": "invalid_count",
                           "message": f"{count!r} is not a whole number", "retryable": False})
    _save(ctx, state)
    return ctx.partial(succeeded, failed)


def stock(ctx):
    return list_items(ctx)[:10]


NOT_FOUND = {"code": "not_found", "exit": 3, "when": "no item has that SKU"}
UNAVAILABLE = {"code": "storage_unavailable", "exit": 7, "when": "the stock file cannot be read"}
NO_STOCK = {"code": "insufficient_stock", "exit": 5, "when": "fewer in stock than ordered"}

SKU = Option(type="string", required=True, description="the item's SKU", aliases=["item"],
             placeholder="<sku>")

program = Program(
    name="warehouse", version="2.1.0", description="Track stock, orders and restocks",
    schema_version="2", output_budget=1500, options={"store": STORE}, setup=open_stock,
    commands=[
        Command(name="export", description="Stream every item, one per line", effects="read_only",
                options={"fail_at": Option(type="integer", min=1, description="fail at this "
                                           "item (to try a stream that breaks)")},
                errors=[UNAVAILABLE], examples=["warehouse export --format ndjson"],
                run=export),
        Group(name="items", description="Items in stock", commands=[
            Command(name="list", description="List items, a page at a time", effects="read_only",
                    paginated=50, output={"type": "array", "items": ITEM},
                    options={"bin": Option(type="string", description="only bins starting "
                                           "with this")},
                    examples=["warehouse items list --limit 3", "warehouse items list --fields sku,count"],
                    run=list_items),
            Command(name="restock", description="Add stock to an item (plan first)",
                    effects="non_idempotent", plan=_restock_plan,
                    options={"sku": SKU, "count": Option(type="integer", required=True, min=1,
                                                          description="how many to add")},
                    errors=[NOT_FOUND],
                    examples=["warehouse items restock --sku SKU-0003 --count 5 --dry-run"],
                    run=restock),
            Command(name="import", description="Add counts from SKU=COUNT lines", effects="non_idempotent",
                    batch=True,
                    arguments=[Argument("lines", variadic=True, description="SKU=COUNT pairs")],
                    examples=["warehouse items import SKU-0001=3 SKU-9999=1 SKU-0002=x"],
                    run=import_items),
        ]),
        Group(name="orders", description="Customer orders", commands=[
            Command(name="create", description="Take items out of stock for an order",
                    effects="non_idempotent",
                    options={"sku": SKU, "quantity": Option(type="integer", default=1, min=1,
                                                             description="how many")},
                    errors=[NOT_FOUND, NO_STOCK],
                    examples=["warehouse orders create --sku SKU-0002 --quantity 1 --idempotency-key order-42"],
                    run=create_order),
        ]),
        Command(name="stock", description="Show the first items in stock", effects="read_only",
                deprecated="since 2.0", replaced_by="items list", since="1.0",
                options={"bin": Option(type="string", description="only bins starting with this")},
                examples=["warehouse stock"], run=stock),
    ],
)

if __name__ == "__main__":
    run(program)
