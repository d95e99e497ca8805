import base64
import json

import pytest

from bot.signature import signature_valid
from tests.support import CORPUS

DOCUMENT = json.loads((CORPUS / "signature_vectors.json").read_text())
VECTORS = DOCUMENT["vectors"]
NEGATIVE = DOCUMENT["negative_cases"]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["id"])
def test_published_vectors_verify(vector: dict) -> None:
    body = base64.b64decode(vector["payload_utf8_b64"])
    assert body.decode() == vector["payload"]
    assert signature_valid(vector["secret"], body, vector["expected_x_hub_signature_256"])


@pytest.mark.parametrize("case", NEGATIVE, ids=lambda c: c["source"][:40])
def test_negative_vectors_fail(case: dict) -> None:
    assert case["expected_valid"] is False
    assert not signature_valid(case["secret"], case["payload"].encode(), case["signature"])


@pytest.mark.parametrize(
    "header",
    [None, "", "sha256=", "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59", "sha256=zz"],
)
def test_malformed_or_legacy_headers_fail(header: str | None) -> None:
    assert not signature_valid("It's a Secret to Everybody", b"Hello, World!", header)


def test_one_flipped_byte_fails() -> None:
    good = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature_valid("It's a Secret to Everybody", b"Hello, World!", good)
    assert not signature_valid("It's a Secret to Everybody", b"Hello, World?", good)
