"""Jinja templates and headers rendered or shipped by hirace (installed as hirace_py.templates)."""
