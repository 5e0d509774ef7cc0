"""The built-in families' studies, one subpackage each (see :mod:`analysis.study`)."""
