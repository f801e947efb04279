"""The webhooks API (/v1/webhooks): `routes`, `requests` (bodies and their checks), `shapes`
(answers), `access` (owner and writer engine). Delivery is delivery/'s."""
