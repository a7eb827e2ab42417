"""Apache Kafka's ``HasHeaderKeyTest`` and ``TopicNameMatchesTest``, method by method."""

from __future__ import annotations

import pytest
from kconnect_sdk import ConfigError, Headers, SourceRecord
from kconnect_transforms import HasHeaderKey, TopicNameMatches


def _with_headers(*keys: str) -> SourceRecord:
    headers = Headers()
    for key in keys:
        headers = headers.add(key, None)
    return SourceRecord(topic="t", headers=headers)


def _with_topic(topic: str | None) -> SourceRecord:
    return SourceRecord(topic=topic)  # type: ignore[arg-type]  # Kafka's test passes null


# -- HasHeaderKeyTest -------------------------------------------------------------------


def test_has_header_key_test_name_required_in_config() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "name"'):
        HasHeaderKey().configure({})


def test_has_header_key_test_name_may_not_be_empty_in_config() -> None:
    with pytest.raises(ConfigError, match="String must be non-empty"):
        HasHeaderKey().configure({"name": ""})


def test_has_header_key_test_config() -> None:
    predicate: HasHeaderKey[SourceRecord] = HasHeaderKey()
    assert all(not v.error_messages for v in predicate.config().validate({"name": "foo"}))
    configs = predicate.config().validate({"name": ""})
    assert configs[0].error_messages == [
        "Invalid value  for configuration name: String must be non-empty"
    ]


def test_has_header_key_test_test() -> None:
    predicate: HasHeaderKey[SourceRecord] = HasHeaderKey()
    predicate.configure({"name": "foo"})
    assert predicate.test(_with_headers("foo"))
    assert predicate.test(_with_headers("foo", "bar"))
    assert predicate.test(_with_headers("bar", "foo", "bar", "foo"))
    assert not predicate.test(_with_headers("bar"))
    assert not predicate.test(_with_headers("bar", "bar"))
    assert not predicate.test(_with_headers())
    assert not predicate.test(_with_topic(None))


# -- TopicNameMatchesTest ---------------------------------------------------------------


def test_topic_name_matches_test_pattern_required_in_config() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "pattern"'):
        TopicNameMatches().configure({})


def test_topic_name_matches_test_pattern_may_not_be_empty_in_config() -> None:
    with pytest.raises(ConfigError, match="String must be non-empty"):
        TopicNameMatches().configure({"pattern": ""})


def test_topic_name_matches_test_pattern_is_valid_regex_in_config() -> None:
    with pytest.raises(ConfigError, match="Invalid regex"):
        TopicNameMatches().configure({"pattern": "["})


def test_topic_name_matches_test_config() -> None:
    predicate: TopicNameMatches[SourceRecord] = TopicNameMatches()
    assert all(
        not v.error_messages for v in predicate.config().validate({"pattern": "my-prefix-.*"})
    )
    configs = predicate.config().validate({"pattern": "*"})
    assert len(configs[0].error_messages) == 1
    assert "Invalid regex" in configs[0].error_messages[0]


def test_topic_name_matches_test_test() -> None:
    predicate: TopicNameMatches[SourceRecord] = TopicNameMatches()
    predicate.configure({"pattern": "my-prefix-.*"})
    assert predicate.test(_with_topic("my-prefix-"))
    assert predicate.test(_with_topic("my-prefix-foo"))
    assert not predicate.test(_with_topic("x-my-prefix-"))
    assert not predicate.test(_with_topic("x-my-prefix-foo"))
    assert not predicate.test(_with_topic("your-prefix-"))
    assert not predicate.test(_with_topic("your-prefix-foo"))
    assert not predicate.test(_with_topic(None))  # a record without a topic
