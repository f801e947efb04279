"""Response models of the Metrics API, as the SDK's schemas (and the seed) require them.

Stage: api. TypedDicts for mypy and the OpenAPI document; the routes build plain dicts.
`nextPageToken` is left out on the last page (never null).
typing_extensions.TypedDict because pydantic needs it on Python < 3.12.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


class MetricsValue(TypedDict):
    value: float
    # Unix seconds, the start of the bucket (an integer).
    timestamp: int


class MetricsApiResponse(TypedDict):
    results: list[MetricsValue]
    nextPageToken: NotRequired[str]


class LegacyAvgTpsResponse(TypedDict):
    results: list[MetricsValue]
    status: int
    lastRun: int
    nextPageToken: NotRequired[str]


class Chain(TypedDict):
    evmChainId: int
    chainName: str
    blockchainId: str
    subnetId: str
    network: Literal["mainnet", "testnet"]


class MetricsListChainsResponse(TypedDict):
    chains: list[Chain]
    nextPageToken: NotRequired[str]


class ChainRollingWindowMetricsValue(TypedDict, total=False):
    lastHour: float
    lastDay: float
    lastWeek: float
    lastMonth: float
    last90Days: float
    lastYear: float
    allTime: float


class RollingWindowMetricsApiResponse(TypedDict):
    result: ChainRollingWindowMetricsValue


class PChainAddressDetails(TypedDict):
    addresses: list[str]
    # The AddValidatorTx's timestamp (Unix seconds) as a string.
    sortKey: str


class PChainLookingGlassResponse(TypedDict):
    addresses: list[PChainAddressDetails]
    nextPageToken: NotRequired[str]


class ICMMetricsValue(TypedDict):
    value: float
    timestamp: int
    srcBlockchainId: str
    destBlockchainId: str


class ICMMetricsApiResponse(TypedDict):
    results: list[ICMMetricsValue]
    nextPageToken: NotRequired[str]


class ICMRollingWindowMetricsValue(ChainRollingWindowMetricsValue):
    srcBlockchainId: str
    destBlockchainId: str


class ICMRollingWindowMetricsApiResponse(TypedDict):
    result: ICMRollingWindowMetricsValue
