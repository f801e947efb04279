"""Response models of the EVM Data API, as the official SDK's schemas require them.

Stage: api. TypedDicts, not pydantic models: the routes build plain dicts (orjson renders them)
and these types serve mypy and the OpenAPI document. `NotRequired` keys are left out when they
have no value (never null); `tokenReputation` is the one required, nullable key.
typing_extensions.TypedDict because pydantic needs it on Python < 3.12.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

CurrencyCode = Literal[
    "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd"
]
IndexStatus = Literal[
    "UNKNOWN",
    "MISSING_TOKEN",
    "INVALID_TOKEN_URI",
    "INVALID_TOKEN_URI_SCHEME",
    "UNREACHABLE_TOKEN_URI",
    "THROTTLED_TOKEN_URI",
    "METADATA_CONTENT_TOO_LARGE",
    "INVALID_METADATA",
    "INVALID_METADATA_JSON",
    "INDEXED",
    "UNINDEXED",
]
InternalTxType = Literal[
    "UNKNOWN", "CALL", "CREATE", "CREATE2", "CREATE3", "CALLCODE", "DELEGATECALL", "STATICCALL"
]


class Money(TypedDict):
    currencyCode: CurrencyCode
    # A number as the SDK requires; AVADATA_MONEY_VALUE=string serves the seed's string (the
    # OpenAPI document follows the setting).
    value: float


class RichAddress(TypedDict):
    name: NotRequired[str]
    symbol: NotRequired[str]
    decimals: NotRequired[int]
    logoUri: NotRequired[str]
    address: str


class Method(TypedDict):
    callType: Literal["NATIVE_TRANSFER", "CONTRACT_CALL", "CONTRACT_CREATION"]
    methodHash: str
    methodName: NotRequired[str]


class EvmBlock(TypedDict):
    chainId: str
    blockNumber: str
    blockTimestamp: int
    blockHash: str
    txCount: int
    baseFee: str
    gasUsed: str
    gasLimit: str
    gasCost: str
    parentHash: str
    feesSpent: str
    cumulativeTransactions: str
    blockTimestampMilliseconds: NotRequired[int]


class ListEvmBlocksResponse(TypedDict):
    nextPageToken: NotRequired[str]
    blocks: list[EvmBlock]


# Declared functionally because `from` is a Python keyword.
NativeTransaction = TypedDict(
    "NativeTransaction",
    {
        "blockNumber": str,
        "blockTimestamp": int,
        "blockHash": str,
        "chainId": str,
        "blockIndex": int,
        "txHash": str,
        "txStatus": str,
        "txType": int,
        "gasLimit": str,
        "gasUsed": str,
        "gasPrice": str,
        "nonce": str,
        "from": RichAddress,
        "to": RichAddress,
        "method": NotRequired[Method],
        "value": str,
    },
)


class ListNativeTransactionsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[NativeTransaction]


class Erc20Token(TypedDict):
    address: str
    name: str
    symbol: str
    decimals: int
    logoUri: NotRequired[str]
    ercType: Literal["ERC-20"]
    price: NotRequired[Money]


class _NftMetadata(TypedDict):
    # The members both NFT standards share; each schema is still served flat under its name.
    indexStatus: IndexStatus
    metadataLastUpdatedTimestamp: NotRequired[int]
    name: NotRequired[str]
    symbol: NotRequired[str]
    imageUri: NotRequired[str]
    description: NotRequired[str]
    animationUri: NotRequired[str]
    externalUrl: NotRequired[str]
    background: NotRequired[str]


class Erc721TokenMetadata(_NftMetadata):
    attributes: NotRequired[str]


class Erc1155TokenMetadata(_NftMetadata):
    decimals: NotRequired[int]
    properties: NotRequired[str]


class Erc721Token(TypedDict):
    address: str
    name: str
    symbol: str
    ercType: Literal["ERC-721"]
    tokenId: str
    tokenUri: str
    metadata: Erc721TokenMetadata
    ownerAddress: NotRequired[str]


class Erc1155Token(TypedDict):
    address: str
    ercType: Literal["ERC-1155"]
    tokenId: str
    tokenUri: str
    metadata: Erc1155TokenMetadata


# Where a transfer or internal transaction happened and between whom ("from" is a keyword,
# hence the functional form); the items below extend it, their members in the reference's order.
TxRef = TypedDict(
    "TxRef",
    {
        "blockNumber": str,
        "blockTimestamp": int,
        "blockHash": str,
        "txHash": str,
        "from": RichAddress,
        "to": RichAddress,
    },
)


class Erc20Transfer(TxRef):
    logIndex: int
    value: str
    erc20Token: Erc20Token


class Erc721Transfer(TxRef):
    logIndex: int
    erc721Token: Erc721Token


class Erc1155Transfer(TxRef):
    logIndex: int
    value: str
    erc1155Token: Erc1155Token


class ListErc20TransactionsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[Erc20Transfer]


class ListErc721TransactionsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[Erc721Transfer]


class ListErc1155TransactionsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[Erc1155Transfer]


class ListTransfersResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transfers: list[Erc20Transfer | Erc1155Transfer | Erc721Transfer]


class InternalTransaction(TxRef):
    internalTxType: InternalTxType
    value: str
    isReverted: bool
    gasUsed: str
    gasLimit: str


class ListInternalTransactionsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[InternalTransaction]


class NativeTokenBalance(TypedDict):
    name: str
    symbol: str
    decimals: int
    logoUri: NotRequired[str]
    chainId: str
    price: NotRequired[Money]
    balance: str
    balanceValue: NotRequired[Money]


class Erc20TokenBalance(Erc20Token):
    # The token plus its chain and the holder's balance (the schema is still served flat).
    chainId: str
    balance: str
    balanceValue: NotRequired[Money]
    tokenReputation: Literal["Malicious", "Benign"] | None


class ListErc20BalancesResponse(TypedDict):
    nextPageToken: NotRequired[str]
    nativeTokenBalance: NativeTokenBalance
    erc20TokenBalances: list[Erc20TokenBalance]


class Erc721TokenBalance(Erc721Token):
    # The collection list's token plus its chain (the schema is still served flat).
    chainId: str


class ListErc721BalancesResponse(TypedDict):
    nextPageToken: NotRequired[str]
    nativeTokenBalance: NativeTokenBalance
    erc721TokenBalances: list[Erc721TokenBalance]


class ContractDeploymentDetails(TypedDict):
    txHash: str
    deployerAddress: str
    deployerContractAddress: NotRequired[str]


class Erc20Contract(TypedDict):
    name: NotRequired[str]
    address: str
    deploymentDetails: NotRequired[ContractDeploymentDetails]
    ercType: Literal["ERC-20"]
    symbol: NotRequired[str]
    decimals: int


class Erc721Contract(TypedDict):
    name: NotRequired[str]
    address: str
    deploymentDetails: NotRequired[ContractDeploymentDetails]
    ercType: Literal["ERC-721"]
    symbol: NotRequired[str]


class Erc1155Contract(TypedDict):
    name: NotRequired[str]
    address: str
    deploymentDetails: NotRequired[ContractDeploymentDetails]
    ercType: Literal["ERC-1155"]
    symbol: NotRequired[str]


class UnknownContract(TypedDict):
    name: NotRequired[str]
    address: str
    deploymentDetails: NotRequired[ContractDeploymentDetails]
    ercType: Literal["UNKNOWN"]


AnyContract = Erc721Contract | Erc1155Contract | Erc20Contract | UnknownContract


class ListContractsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    contracts: list[AnyContract]


class ListNftTokens(TypedDict):
    nextPageToken: NotRequired[str]
    tokens: list[Erc721Token | Erc1155Token]


class NetworkToken(TypedDict):
    name: str
    symbol: str
    decimals: int
    logoUri: NotRequired[str]
    description: NotRequired[str]


class ChainInfo(TypedDict):
    chainId: str
    status: Literal["OK", "UNAVAILABLE"]
    chainName: str
    description: str
    platformChainId: NotRequired[str]
    subnetId: NotRequired[str]
    vmName: Literal["EVM", "BITCOIN", "ETHEREUM"]
    explorerUrl: NotRequired[str]
    rpcUrl: str
    isTestnet: bool
    networkToken: NetworkToken
    private: NotRequired[bool]
    enabledFeatures: NotRequired[list[Literal["nftIndexing", "webhooks", "teleporter"]]]


class DataListChainsResponse(TypedDict):
    chains: list[ChainInfo]


# --- One transaction in full (getTransaction, getDeploymentTransaction) and an address's
# transactions with their details (listTransactions, listTransactionsV2).


class FullNativeTransactionDetails(NativeTransaction):
    input: str
    baseFeePerGas: str
    blockTimestampMilliseconds: NotRequired[int]
    maxFeePerGas: NotRequired[str]
    maxPriorityFeePerGas: NotRequired[str]


# The transfer and internal-transaction details inside a transaction: the parties and the
# amounts, without the transaction's own position (the functional form: `from`).
Erc20TransferDetails = TypedDict(
    "Erc20TransferDetails",
    {
        "from": RichAddress,
        "to": RichAddress,
        "logIndex": int,
        "value": str,
        "erc20Token": Erc20Token,
    },
)
Erc721TransferDetails = TypedDict(
    "Erc721TransferDetails",
    {"from": RichAddress, "to": RichAddress, "logIndex": int, "erc721Token": Erc721Token},
)
Erc1155TransferDetails = TypedDict(
    "Erc1155TransferDetails",
    {
        "from": RichAddress,
        "to": RichAddress,
        "logIndex": int,
        "value": str,
        "erc1155Token": Erc1155Token,
    },
)
InternalTransactionDetails = TypedDict(
    "InternalTransactionDetails",
    {
        "from": RichAddress,
        "to": RichAddress,
        "internalTxType": InternalTxType,
        "value": str,
        "isReverted": bool,
        "gasUsed": str,
        "gasLimit": str,
    },
)


class Erc20TokenV2(Erc20Token):
    tokenReputation: Literal["Malicious", "Benign"] | None


Erc20TransferDetailsV2 = TypedDict(
    "Erc20TransferDetailsV2",
    {
        "from": RichAddress,
        "to": RichAddress,
        "logIndex": int,
        "value": str,
        "erc20Token": Erc20TokenV2,
    },
)


class NetworkTokenDetails(TypedDict):
    networkToken: NetworkToken
    currentPrice: NotRequired[Money]
    historicalPrice: NotRequired[Money]


class GetTransactionResponse(TypedDict):
    erc20Transfers: NotRequired[list[Erc20TransferDetails]]
    erc721Transfers: NotRequired[list[Erc721TransferDetails]]
    erc1155Transfers: NotRequired[list[Erc1155TransferDetails]]
    internalTransactions: NotRequired[list[InternalTransactionDetails]]
    networkTokenDetails: NetworkTokenDetails
    nativeTransaction: FullNativeTransactionDetails


class TransactionDetails(TypedDict):
    nativeTransaction: NativeTransaction
    erc20Transfers: NotRequired[list[Erc20TransferDetails]]
    erc721Transfers: NotRequired[list[Erc721TransferDetails]]
    erc1155Transfers: NotRequired[list[Erc1155TransferDetails]]
    internalTransactions: NotRequired[list[InternalTransactionDetails]]


class ListTransactionDetailsResponse(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[TransactionDetails]


class TransactionDetailsV2(TypedDict):
    nativeTransaction: NativeTransaction
    erc20Transfers: NotRequired[list[Erc20TransferDetailsV2]]
    erc721Transfers: NotRequired[list[Erc721TransferDetails]]
    erc1155Transfers: NotRequired[list[Erc1155TransferDetails]]
    internalTransactions: NotRequired[list[InternalTransactionDetails]]


class ListTransactionDetailsResponseV2(TypedDict):
    nextPageToken: NotRequired[str]
    transactions: list[TransactionDetailsV2]


# --- Balances beyond ERC-20/721, and one NFT.


class GetNativeBalanceResponse(TypedDict):
    nativeTokenBalance: NativeTokenBalance


class Erc1155TokenBalance(Erc1155Token):
    chainId: str
    balance: str


class ListErc1155BalancesResponse(TypedDict):
    nextPageToken: NotRequired[str]
    nativeTokenBalance: NativeTokenBalance
    erc1155TokenBalances: list[Erc1155TokenBalance]


class ListCollectibleBalancesResponse(TypedDict):
    nextPageToken: NotRequired[str]
    collectibleBalances: list[Erc721TokenBalance | Erc1155TokenBalance]


# --- Across chains.


class ListAddressChainsResponse(TypedDict):
    indexedChains: NotRequired[list[ChainInfo]]
    unindexedChains: NotRequired[list[str]]


# --- The service operations.


class HealthIndicatorResult(TypedDict, total=False):
    status: Literal["up", "down"]


class HealthCheckResult(TypedDict):
    status: Literal["error", "ok", "shutting_down"]
    info: NotRequired[dict[str, HealthIndicatorResult] | None]
    error: NotRequired[dict[str, HealthIndicatorResult] | None]
    details: NotRequired[dict[str, HealthIndicatorResult]]
