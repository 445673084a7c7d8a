from typing import Literal

HealthStore = Literal["redis", "sqlite"]

HEALTH_STORE_VALUES: set[HealthStore] = {
    "redis",
    "sqlite",
}


def check_health_store(value: str) -> HealthStore:
    if value in HEALTH_STORE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {HEALTH_STORE_VALUES!r}"
    )
