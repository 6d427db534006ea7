"""A tiny inventory package: the sample project for `graphplan graph`."""
from .models import Item, Stock
from .service import restock

__all__ = ["Item", "Stock", "restock"]
