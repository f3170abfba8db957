from perfcompose.loggp.goal.lazy_sequence import LazySequence


def test_items_are_read_once_and_only_when_first_asked_for() -> None:
    calls = []

    def read() -> tuple[int, ...]:
        calls.append(1)
        return (5, 6, 7)

    seq: LazySequence[int] = LazySequence(read, 3)
    assert len(seq) == 3 and calls == []
    assert seq[1] == 6 and list(seq[1:]) == [6, 7] and list(seq) == [5, 6, 7]
    assert calls == [1]


def test_load_turns_what_read_gives_into_the_items() -> None:
    class Doubled(LazySequence[int]):
        def _load(self) -> list[int]:
            return [2 * x for x in self._read()]

    assert list(Doubled(lambda: [1, 2], 2)) == [2, 4]
