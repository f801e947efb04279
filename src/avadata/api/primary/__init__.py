"""The Data API's primary-network routes: transactions, UTXOs, validators."""
