from typing import Literal

SignatureScheme = Literal["spool", "standard_webhooks"]

SIGNATURE_SCHEME_VALUES: set[SignatureScheme] = {
    "spool",
    "standard_webhooks",
}


def check_signature_scheme(value: str) -> SignatureScheme:
    if value in SIGNATURE_SCHEME_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SIGNATURE_SCHEME_VALUES!r}"
    )
