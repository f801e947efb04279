"""delivery: the webhooks' events, from the store to their receivers.

Stage: delivery, beside the API at the end of the journey: it reads the store (and moves each
webhook's cursor there) and calls receivers, never a node. `payload` and `signing` are pure;
`targets` says which URLs may be called; `worker` runs the deliveries (docs/webhooks.md).
"""
