from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    price: float

    def discounted(self, percent: float) -> float:
        if not 0 <= percent <= 100:
            raise ValueError(f"bad percent: {percent}")
        return self.price * (1 - percent / 100)


@dataclass
class Stock:
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, item: Item, count: int = 1) -> None:
        self.counts[item.sku] = self.counts.get(item.sku, 0) + count

    def remove(self, item: Item, count: int = 1) -> None:
        have = self.counts.get(item.sku, 0)
        if have < count:
            raise KeyError(item.sku)
        self.counts[item.sku] = have - count
