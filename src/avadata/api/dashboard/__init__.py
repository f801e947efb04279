"""The dashboard: a static page at `/` that reads only the Data and Metrics API (docs/dashboard.md).

Stage: api. Serves files, reads no store.
"""
