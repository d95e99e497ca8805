"""The `agentium` command: run, web, worker, redis, simulate, local, eval."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from config.settings import Settings, SettingsError, load_settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        from workers.offline import simulate

        return simulate.main([args.scenario])
    if args.command == "local":
        from workers.offline import local

        return local.main(args.args)
    if args.command == "eval":
        from workers.eval import cli

        return cli.main(args.args)
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"agentium: {exc}", file=sys.stderr)
        return 2
    handlers = {"run": _run, "web": _web, "dispatch": _dispatch, "worker": _worker}
    handler = {**handlers, "redis": _redis}[args.command]
    return handler(settings, args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentium", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="Redis (embedded unless REDIS_URL), web and workers together")
    web = sub.add_parser("web", help="the webhook receiver (uvicorn)")
    web.add_argument(
        "--no-dispatch",
        action="store_true",
        help="no dispatcher thread: `agentium dispatch` runs it as its own process",
    )
    sub.add_parser("dispatch", help="the dispatcher: intake entries into RQ jobs")
    worker = sub.add_parser("worker", help="one RQ worker")
    worker.add_argument("--name", default=None)
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    worker.add_argument("--max-jobs", type=int, default=None, help="exit after this many jobs")
    worker.add_argument(
        "--no-github",
        action="store_true",
        help="only jobs that need no GitHub App (agentium eval's): no sweep, no reconcile",
    )
    sub.add_parser("redis", help="only the embedded Redis, in the foreground")
    simulate = sub.add_parser("simulate", help="run the phase controller on a scenario file")
    simulate.add_argument("scenario")
    local = sub.add_parser("local", help="the loop on a local git repository", prefix_chars="+")
    local.add_argument("args", nargs="*", help="--repo PATH --issue-file ISSUE.md ...")
    evaluate = sub.add_parser(
        "eval", help="the loop on a suite of tasks, graded by hidden tests", prefix_chars="+"
    )
    evaluate.add_argument("args", nargs="*", help="SUITE.jsonl [--workers N] ... | compare A B")
    return parser


def _run(settings: Settings, _args: argparse.Namespace) -> int:
    from bot.setup import in_setup_mode
    from workers.processes.supervisor import Supervisor

    if in_setup_mode(settings):
        return _run_setup(settings)
    # An App needs all of its credentials: say which are missing before anything starts.
    # The slug is asked of GitHub by the workers when APP_SLUG is unset.
    needed = ("webhook_secret", "private_key") if settings.app_id else ("webhook_secret",)
    try:
        settings.require(*needed)
    except SettingsError as exc:
        print(f"agentium: {exc} (set it in the environment or in .env)", file=sys.stderr)
        return 2
    if not _sandbox_works(settings):
        return 2
    supervisor = Supervisor(settings)
    env = supervisor.start()
    print(
        f"agentium: web on http://{settings.host}:{settings.port} "
        f"(webhooks: /api/github/webhooks, health: /healthz); "
        f"{settings.workers} worker(s); Redis at {env['REDIS_URL']}"
        + (" (embedded)" if supervisor.redis else ""),
        flush=True,
    )
    return supervisor.wait()


def _run_setup(settings: Settings) -> int:
    """First run: Redis and the web process serving the setup page, no workers."""
    from workers.processes.supervisor import Supervisor

    supervisor = Supervisor(settings, setup=True)
    supervisor.start()
    print(
        f"agentium: no GitHub App configured yet; open http://{settings.host}:{settings.port}/ "
        "to register one (setup mode: no workers)",
        flush=True,
    )
    return supervisor.wait()


def _web(settings: Settings, args: argparse.Namespace) -> int:
    from bot.logs import configure_logging
    from bot.serve import serve

    configure_logging(settings.log_level)
    factory = "create_receiver_from_env" if args.no_dispatch else "create_app_from_env"
    serve(f"bot.app:{factory}", settings.host, settings.port)
    return 0


def _dispatch(settings: Settings, _args: argparse.Namespace) -> int:
    import signal
    import threading

    from bot.app import run_dispatcher
    from bot.logs import configure_logging

    try:
        settings.require("redis_url")
    except SettingsError as exc:
        print(f"agentium: {exc} (set it in the environment or in .env)", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda _signum, _frame: stop.set())
    run_dispatcher(settings, stop)
    return 0


def _worker(settings: Settings, args: argparse.Namespace) -> int:
    from bot.logs import configure_logging
    from workers.processes.worker_loop import run_worker

    try:
        settings.require("redis_url")
        if settings.app_id and not args.no_github:
            settings.require("private_key")
    except SettingsError as exc:
        print(f"agentium: {exc} (set it in the environment or in .env)", file=sys.stderr)
        return 2
    if not _sandbox_works(settings):
        return 2
    configure_logging(settings.log_level)
    from workers.github.app_slug import AppSlugUnknown

    try:
        if not args.no_github:
            preload_runtime(settings)
    except AppSlugUnknown as exc:
        print(f"agentium: {exc}", file=sys.stderr)
        return 2
    return run_worker(settings, name=args.name, burst=args.burst, max_jobs=args.max_jobs)


def _sandbox_works(settings: Settings) -> bool:
    """Whether agents' commands can be confined here; if not, say how to fix it."""
    from workers.agents.sandbox import SandboxUnavailable
    from workers.runtime import require_sandbox

    try:
        require_sandbox(settings)
    except SandboxUnavailable as exc:
        print(f"agentium: {exc}", file=sys.stderr)
        return False
    return True


def preload_runtime(settings: Settings) -> None:
    """Build the clients once, before forking a work-horse per job (they inherit them)."""
    from datetime import timedelta

    from workers import jobs
    from workers.engine import scheduling
    from workers.intake import reconcile
    from workers.warmup import warm_up

    if settings.app_id is None:
        print("agentium: APP_ID is not set; tasks cannot run until it is", file=sys.stderr)
        return
    runtime = jobs.runtime()
    warm_up(runtime)
    scheduling.schedule_sweep(runtime.queue, every=timedelta(seconds=settings.sweep_every_s))
    reconcile.schedule_reconcile(runtime.queue)


def _redis(settings: Settings, _args: argparse.Namespace) -> int:
    import signal

    from workers.processes.embedded_redis import EmbeddedRedis

    stop = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    with EmbeddedRedis(data_dir=settings.data_dir) as server:
        print(f"agentium: embedded Redis at {server.url}", flush=True)
        signal.sigwait(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
