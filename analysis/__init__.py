"""Loading, aggregation and seaborn figures over sweep results."""

__all__: list[str] = []
