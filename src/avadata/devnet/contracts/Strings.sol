// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Small string helpers the NFT contracts need for their URIs.
library Strings {
    function toString(uint256 value) internal pure returns (string memory) {
        if (value == 0) {
            return "0";
        }
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) {
            digits++;
        }
        bytes memory out = new bytes(digits);
        while (value != 0) {
            digits--;
            out[digits] = bytes1(uint8(48 + (value % 10)));
            value /= 10;
        }
        return string(out);
    }

    bytes internal constant ALPHABET =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Standard base64 with padding (RFC 4648), for data: URIs.
    function base64(bytes memory data) internal pure returns (string memory) {
        if (data.length == 0) {
            return "";
        }
        bytes memory out = new bytes(4 * ((data.length + 2) / 3));
        uint256 j = 0;
        for (uint256 i = 0; i < data.length; i += 3) {
            uint256 a = uint8(data[i]);
            uint256 b = i + 1 < data.length ? uint8(data[i + 1]) : 0;
            uint256 c = i + 2 < data.length ? uint8(data[i + 2]) : 0;
            uint256 triple = (a << 16) | (b << 8) | c;
            out[j++] = ALPHABET[(triple >> 18) & 63];
            out[j++] = ALPHABET[(triple >> 12) & 63];
            out[j++] = i + 1 < data.length ? ALPHABET[(triple >> 6) & 63] : bytes1("=");
            out[j++] = i + 2 < data.length ? ALPHABET[triple & 63] : bytes1("=");
        }
        return string(out);
    }
}
