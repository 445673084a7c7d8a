from typing import Literal

HttpMethod = Literal["DELETE", "GET", "PATCH", "POST", "PUT"]

HTTP_METHOD_VALUES: set[HttpMethod] = {
    "DELETE",
    "GET",
    "PATCH",
    "POST",
    "PUT",
}


def check_http_method(value: str) -> HttpMethod:
    if value in HTTP_METHOD_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {HTTP_METHOD_VALUES!r}"
    )
