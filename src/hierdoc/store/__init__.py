"""Storage behind one narrow interface (``base.Store``); one folder per backend."""
