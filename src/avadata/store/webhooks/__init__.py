"""The webhooks' rows (`registry`) and the indexed rows their events are made of (`events`).

Stage: store.
"""
