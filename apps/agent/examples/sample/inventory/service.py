import logging

from .models import Item, Stock

log = logging.getLogger(__name__)


def restock(stock: Stock, items: list[Item], minimum: int = 5) -> int:
    """Tops every item up to `minimum`; returns how many units were added."""
    added = 0
    for item in items:
        missing = minimum - stock.counts.get(item.sku, 0)
        if missing > 0:
            stock.add(item, missing)
            added += missing
    log.info("restocked %d units", added)
    return added
