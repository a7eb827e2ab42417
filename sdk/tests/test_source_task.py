from __future__ import annotations

from kconnect_sdk import SourceRecord, SourceTask


class _Task(SourceTask):
    def __init__(self, rows: int) -> None:
        self.left = rows

    def start(self, props: object) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        if self.left <= 0:
            return None
        self.left -= 1
        return [SourceRecord(topic="t", value=self.left)]

    def stop(self) -> None:
        pass


class _Ending(_Task):
    def finished(self) -> bool:
        return self.left <= 0


def test_a_task_that_says_nothing_never_finishes() -> None:
    task = _Task(1)
    assert task.finished() is False
    task.poll()
    assert task.poll() is None
    assert task.finished() is False


def test_a_bounded_task_says_when_it_has_returned_everything() -> None:
    task = _Ending(2)
    assert not task.finished()
    task.poll()
    assert not task.finished()
    task.poll()
    assert task.finished()
