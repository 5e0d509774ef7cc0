"""The documents ``python -m analysis`` renders, by command: the frame template of each
(``analysis/templates/<file>``, filled by :func:`analysis.document.render`). Named here,
apart from the document engine, so that the command line's help and its argument errors
import nothing else."""

#: The documents, by command: the frame template each renders.
DOCUMENTS: dict[str, str] = {"reproduce": "reproduction.md", "continual": "continual.md",
                             "decentralized": "decentralized.md"}
