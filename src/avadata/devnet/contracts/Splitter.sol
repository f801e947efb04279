// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Moves native value inside calls: every payment here is an internal transaction (a CALL with
/// value) that only traces show. failAfterSplit makes a transaction revert after such calls.
contract Splitter {
    event Split(address indexed from, uint256 total, uint256 recipients);

    /// Sends msg.value in equal parts to every recipient (the remainder to the last one).
    function split(address[] calldata recipients) public payable {
        require(recipients.length > 0, "Splitter: no recipients");
        uint256 share = msg.value / recipients.length;
        for (uint256 i = 0; i < recipients.length; i++) {
            uint256 amount = i + 1 == recipients.length
                ? msg.value - share * (recipients.length - 1)
                : share;
            (bool ok,) = recipients[i].call{value: amount}("");
            require(ok, "Splitter: payment failed");
        }
        emit Split(msg.sender, msg.value, recipients.length);
    }

    /// Forwards the value to another splitter: a value-moving call two levels deep.
    function relay(Splitter next, address[] calldata recipients) external payable {
        next.split{value: msg.value}(recipients);
    }

    /// Does the internal payments, then reverts: the transaction is included with status 0.
    function failAfterSplit(address[] calldata recipients) external payable {
        split(recipients);
        require(recipients.length == 0, "Splitter: failing on purpose");
    }

    receive() external payable {}
}
