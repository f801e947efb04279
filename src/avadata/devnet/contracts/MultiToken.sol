// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import "./Strings.sol";

interface IERC1155Receiver {
    function onERC1155Received(address, address, uint256, uint256, bytes calldata)
        external
        returns (bytes4);
    function onERC1155BatchReceived(
        address,
        address,
        uint256[] calldata,
        uint256[] calldata,
        bytes calldata
    ) external returns (bytes4);
}

/// A minimal ERC-1155 with open mint; uri() uses the standard {id} substitution pattern.
contract MultiToken {
    mapping(uint256 => mapping(address => uint256)) public balanceOf;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );
    event TransferBatch(
        address indexed operator,
        address indexed from,
        address indexed to,
        uint256[] ids,
        uint256[] values
    );
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7 || id == 0xd9b67a26 || id == 0x0e89341c;
    }

    function uri(uint256) external pure returns (string memory) {
        return "http://127.0.0.1:9650/multi/{id}.json";
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory out)
    {
        require(accounts.length == ids.length, "ERC1155: length mismatch");
        out = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) {
            out[i] = balanceOf[ids[i]][accounts[i]];
        }
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function mint(address to, uint256 id, uint256 amount) external {
        balanceOf[id][to] += amount;
        emit TransferSingle(msg.sender, address(0), to, id, amount);
        _checkSingle(address(0), to, id, amount, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts) external {
        require(ids.length == amounts.length, "ERC1155: length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            balanceOf[ids[i]][to] += amounts[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, amounts);
        _checkBatch(address(0), to, ids, amounts, "");
    }

    function safeTransferFrom(
        address from,
        address to,
        uint256 id,
        uint256 amount,
        bytes calldata data
    ) external {
        require(from == msg.sender || isApprovedForAll[from][msg.sender], "ERC1155: not approved");
        require(to != address(0), "ERC1155: transfer to the zero address");
        uint256 have = balanceOf[id][from];
        require(have >= amount, "ERC1155: insufficient balance");
        balanceOf[id][from] = have - amount;
        balanceOf[id][to] += amount;
        emit TransferSingle(msg.sender, from, to, id, amount);
        _checkSingle(from, to, id, amount, data);
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata amounts,
        bytes calldata data
    ) external {
        require(ids.length == amounts.length, "ERC1155: length mismatch");
        require(from == msg.sender || isApprovedForAll[from][msg.sender], "ERC1155: not approved");
        require(to != address(0), "ERC1155: transfer to the zero address");
        for (uint256 i = 0; i < ids.length; i++) {
            uint256 have = balanceOf[ids[i]][from];
            require(have >= amounts[i], "ERC1155: insufficient balance");
            balanceOf[ids[i]][from] = have - amounts[i];
            balanceOf[ids[i]][to] += amounts[i];
        }
        emit TransferBatch(msg.sender, from, to, ids, amounts);
        _checkBatch(from, to, ids, amounts, data);
    }

    function _checkSingle(address from, address to, uint256 id, uint256 amount, bytes memory data)
        private
    {
        if (to.code.length > 0) {
            bytes4 answer =
                IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, amount, data);
            require(answer == IERC1155Receiver.onERC1155Received.selector, "ERC1155: rejected");
        }
    }

    function _checkBatch(
        address from,
        address to,
        uint256[] memory ids,
        uint256[] memory amounts,
        bytes memory data
    ) private {
        if (to.code.length > 0) {
            bytes4 answer =
                IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, amounts, data);
            require(
                answer == IERC1155Receiver.onERC1155BatchReceived.selector, "ERC1155: rejected"
            );
        }
    }
}
