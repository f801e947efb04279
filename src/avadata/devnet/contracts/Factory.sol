// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./Token.sol";

/// The smallest created contract: remembers its creator.
contract Leaf {
    address public creator;

    constructor() {
        creator = msg.sender;
    }
}

/// What the factory creates: records who made it, can hold value and make a Leaf of its own
/// (so call trees contain nested creations).
contract Child {
    address public creator;
    uint256 public tag;

    event Pinged(address indexed from, uint256 tag);

    constructor(uint256 tag_) payable {
        creator = msg.sender;
        tag = tag_;
    }

    function ping() external returns (uint256) {
        emit Pinged(msg.sender, tag);
        return tag;
    }

    function spawn() external returns (address) {
        return address(new Leaf());
    }

    receive() external payable {}
}

/// Creates contracts with CREATE and CREATE2, so indexers see contract creations whose
/// deployer is a contract, not the transaction's sender.
contract Factory {
    event Created(address indexed child, address indexed by, bool create2);

    function create(uint256 tag) external payable returns (address child) {
        child = address(new Child{value: msg.value}(tag));
        emit Created(child, msg.sender, false);
    }

    function create2(bytes32 salt, uint256 tag) external payable returns (address child) {
        child = address(new Child{salt: salt, value: msg.value}(tag));
        emit Created(child, msg.sender, true);
    }

    /// CREATE a child, then have that child CREATE a grandchild: two creations, two depths.
    function createNested(uint256 tag) external returns (address child, address grandchild) {
        child = address(new Child(tag));
        grandchild = Child(payable(child)).spawn();
        emit Created(child, msg.sender, false);
    }

    function createToken(string calldata name, string calldata symbol, uint8 decimals)
        external
        returns (address token)
    {
        token = address(new Token(name, symbol, decimals));
        emit Created(token, msg.sender, false);
    }
}
