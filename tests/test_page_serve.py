"""The playground's server (pybridge/web/serve.py) through Starlette's test client: judgements,
errors at their field, trees on demand, moves, downloads that pass the ruling runner, and the
refusals (size limits, other content types, other origins and hosts)."""

from __future__ import annotations

import pytest
import yaml

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from pybridge.api import check  # noqa: E402
from pybridge.input.situation import situation_from_data  # noqa: E402
from pybridge.tools.rulings import judge_ruling  # noqa: E402
from pybridge.web.serve import Ask, Judge, create_app, exposure_warning, starter_text  # noqa: E402

BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(starter_text()), base_url=BASE) as test_client:
        yield test_client


def _post(client, path: str, **body):
    return client.post(path, json={"text": starter_text(), **body})


def test_the_page_is_served_with_its_policy(client):
    response = client.get("/")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "connect-src 'self'" in policy and "default-src 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert '"mode":"playground"' in response.text


def test_a_judgement_is_the_page_data_without_trees(client):
    answer = _post(client, "/api/judge").json()
    assert answer["ok"]
    page = answer["page"]
    assert page["viewpoint"] == "p1" and page["verdicts"] and all(v["tree"] is None for v in page["verdicts"])
    assert answer["controls"]["players"] == ["p1", "p2"] and "515" in answer["controls"]["editions"]
    actions = {v["action"] for v in page["verdicts"]}
    assert actions == {v.action for v in check(situation_from_data(yaml.safe_load(starter_text()))).verdicts}


def test_choices_beside_the_text_apply(client):
    page = _post(client, "/api/judge", viewpoint="p2", edition="515",
                 options={"range_metric": "manhattan"}).json()["page"]
    assert (page["viewpoint"], page["edition"]["id"]) == ("p2", "515")
    assert {"name": "range_metric", "value": "manhattan"}.items() <= next(
        o for o in page["options"] if o["name"] == "range_metric").items()
    runner = next(c for c in page["cards"] if c["cell"] == {"side": "p1", "column": 4, "row": 1})
    assert runner["unknown"] and runner["name"] is None
    error = _post(client, "/api/judge", viewpoint="p9").json()["error"]
    assert error["where"] == "controls" and "p9" in error["message"]


def test_an_error_is_given_at_its_field_and_line(client):
    text = starter_text().replace("cell: {column: 2, row: 2}", "cell: {column: 2, row: 9}")
    error = client.post("/api/judge", json={"text": text}).json()["error"]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "id: dzara" in row)
    assert (error["where"], error["field"], error["line"]) == ("text", "cards[1].cell.row", line)
    error = client.post("/api/judge", json={"text": "game: berserk\ncards: [\n"}).json()["error"]
    assert error["line"] == 3 and "YAML" in error["message"]
    misspelt = starter_text().replace("card: Вайл", "card: Вайлл", 1)
    error = client.post("/api/judge", json={"text": misspelt}).json()["error"]
    assert "Вайл" in error["message"] and error["field"].startswith("cards[")


def test_a_tree_is_fetched_for_one_verdict(client):
    page = _post(client, "/api/judge").json()["page"]
    index = next(v["index"] for v in page["verdicts"] if v["action"] == "shot(elf, aloft)")
    answer = _post(client, "/api/tree", index=index).json()
    assert answer["ok"] and answer["tree"]["children"][0]["text"] == "possible under"
    assert all(answer["clauses"][c]["heading"] for c in answer["clauses"] if not c.startswith("model:"))
    assert not _post(client, "/api/tree", index=10_000).json()["ok"]


def test_a_move_rewrites_the_cell_even_for_a_card_the_viewer_cannot_see(client):
    answer = _post(client, "/api/move", card="dzara", cell={"side": "p1", "column": 5, "row": 3}).json()
    cards = {c["id"]: c for c in yaml.safe_load(answer["text"])["cards"]}
    assert cards["dzara"]["cell"] == {"column": 5, "row": 3}
    assert answer["text"].startswith("# A Berserk board")  # the author's comments stay
    # p1 sees p2's hidden serpent as hidden@p2:2.1; moving that moves the serpent.
    answer = _post(client, "/api/move", card="hidden@p2:2.1", cell={"side": "p2", "column": 5, "row": 1}).json()
    assert {c["id"]: c for c in yaml.safe_load(answer["text"])["cards"]}["serpent"]["cell"] == {"column": 5, "row": 1}
    # A hand card put in a cell enters the battlefield.
    answer = _post(client, "/api/move", card="flame", cell={"side": "p2", "column": 1, "row": 3}).json()
    flame = {c["id"]: c for c in yaml.safe_load(answer["text"])["cards"]}["flame"]
    assert (flame["zone"], flame["cell"]) == ("battlefield", {"side": "p2", "column": 1, "row": 3})
    assert not _post(client, "/api/move", card="nobody", cell={"side": "p1", "column": 1, "row": 1}).json()["ok"]


@pytest.mark.parametrize("viewpoint", [None, "p2"])
def test_the_downloaded_ruling_passes_the_runner(client, viewpoint):
    answer = _post(client, "/api/download", kind="ruling", viewpoint=viewpoint, edition="515").json()
    assert answer["ok"] and answer["filename"] == "ruling.yaml"
    situation = situation_from_data(yaml.safe_load(answer["text"]))
    assert situation.viewpoint == (viewpoint or "p1") and situation.edition == "515"
    assert situation.ruling.expect.player == situation.viewpoint
    assert judge_ruling(situation, check(situation)) == []
    # The expectations are exact: one verdict said the other way round fails the ruling.
    data = yaml.safe_load(answer["text"])
    action, cites = next(iter(data["ruling"]["expect"]["legal"].items()))
    del data["ruling"]["expect"]["legal"][action]
    data["ruling"]["expect"]["illegal"][action] = cites
    flipped = situation_from_data(data)
    assert judge_ruling(flipped, check(flipped)) != []
    plain = _post(client, "/api/download", kind="situation", viewpoint=viewpoint).json()
    assert "ruling" not in yaml.safe_load(plain["text"])
    assert yaml.safe_load(plain["text"])["viewpoint"] == (viewpoint or "p1")


def test_refusals(client, monkeypatch):
    assert client.post("/api/judge", content=b"text=x", headers={"content-type": "text/plain"}).status_code == 415
    assert client.post("/api/judge", json={"text": 1}).status_code == 400
    assert client.post("/api/judge", content=b"[", headers={"content-type": "application/json"}).status_code == 400
    cross = client.post("/api/judge", json={"text": "x"}, headers={"origin": "http://evil.example"})
    assert cross.status_code == 403
    assert client.post("/api/judge", json={"text": "x"}, headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    monkeypatch.setenv("CCG_JUDGE_MAX_FILE_BYTES", "1000")  # below the starter, above a request cap
    error = _post(client, "/api/judge").json()["error"]
    assert "too large" in error["message"] and "CCG_JUDGE_MAX_FILE_BYTES" in error["message"]
    assert client.post("/api/judge", json={"text": "x" * 70_000}).status_code == 413  # over 2 x 1000 + 64 KiB


def test_a_request_overtaken_while_it_waits_is_answered_as_stale():
    judge = Judge()
    first, second = judge.ticket(), judge.ticket()
    assert judge.judge(Ask(starter_text()), first) == {"ok": False, "stale": True}
    assert judge.judge(Ask(starter_text()), second)["ok"]


def test_serving_beyond_loopback_warns():
    assert exposure_warning("127.0.0.1") is None and exposure_warning("localhost") is None
    assert exposure_warning("::1") is None
    assert "anyone who can reach" in exposure_warning("0.0.0.0")


def test_a_tree_explained_for_another_player_first_comes_from_the_whole_graph(monkeypatch):
    """When explain answers for another player's same action first, the page takes that verdict's
    graph from check --trees (found in review: that branch copied the report the dataclass way)."""
    from pybridge import api
    from pybridge.web import serve

    judge = Judge()
    ask = Ask(starter_text())
    assert judge.judge(ask)["ok"]
    real = api.explain

    def other_player_first(situation, action, **kwargs):
        report = real(situation, action, **kwargs)
        report.verdicts[0].player = "someone else"
        return report

    monkeypatch.setattr(serve.api, "explain", other_player_first)
    answer = judge.tree(ask, 0)
    assert answer["ok"], answer
    assert answer["tree"]


def test_the_served_judge_is_recycled_like_batch_workers_and_answers_the_same():
    """The judging worker retires after ``recycle`` requests; its warm spare takes over and a new
    spare starts, and the page data does not change across the hand-over."""
    from pybridge.web.serve import WorkerJudge

    judge = WorkerJudge(recycle=2)
    try:
        answers = [judge.judge(Ask(starter_text()), judge.ticket()) for _ in range(3)]
        started = [w.process.pid for w in judge._pool._workers]
    finally:
        judge.close()
    assert all(a["ok"] for a in answers)
    assert answers[0]["page"] == answers[2]["page"]
    assert len(started) == 3, "the first worker, its spare, and the spare started when the first retired"
    assert not judge._pool._workers[0].process.is_alive()
