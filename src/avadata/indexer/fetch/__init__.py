"""The fetch process: an EVM chain's chunks fetched, decoded and prepared beside the writer.

spawn.py starts the children (early, from the command line) and ties their life to the
parent's; child.py is a child's main; protocol.py the typed messages between the two; feed.py
the feeds as the indexer sees them; produce.py the fetch-decode-prepare loop both sides run;
guess.py a child's head start on its first range. Cheap to import on purpose (nothing here).
"""
