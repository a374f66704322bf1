# Licensed under the Apache License, Version 2.0, as the rest of Aryl.
"""An ordinary PyTorch DDP training script that runs elastic on Aryl unchanged.

It reads what torchrun-style launchers set (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT: ``init_method="env://"``),
checkpoints to $ARYL_CHECKPOINT_DIR every --checkpoint-every steps and when it gets SIGTERM, and resumes from the
latest checkpoint when it starts, so each new generation of the job continues where the last one stopped. CPU and
gloo; a tiny model on synthetic data.

Under torchrun (Aryl's ``--launcher torchrun``) it works the same: torchrun sets the same variables and sends SIGTERM
to its workers before it re-forms the group. Two things differ there, and the script handles both for either launcher:

- A worker is told to stop only by its own agent, so a rank that stops because another rank was told to (the stop flag
  is all-reduced) waits up to --peer-lost-wait-s for its own SIGTERM, and exits 1 when none comes: its agent then
  re-forms the group with the others (a node that left). It must not exit 0, which torchrun reads as "training done".
- There is no ARYL_GENERATION, and TORCHELASTIC_RESTART_COUNT is no generation number (it counts only the restarts
  torchrun charged to that agent, and a joining agent starts at 0): rank 0 numbers the generations with a counter in
  $ARYL_CHECKPOINT_DIR/generation and tells the other ranks.
"""

import argparse
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

stop_requested = False


def on_sigterm(signum, frame):
    # Finish the current step, then checkpoint and exit: the next generation resumes from here.
    global stop_requested
    stop_requested = True


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=500, help="train until this many steps are done, then exit 0")
    p.add_argument("--checkpoint-every", type=int, default=20, help="steps between periodic checkpoints")
    p.add_argument("--step-seconds", type=float, default=0.0,
                   help="pace each step to at least this long (a demo on a tiny model lasts long enough to rescale)")
    p.add_argument("--log-file", default="",
                   help="also append one JSON line per event (every rank's start, rank 0's steps and checkpoints)")
    p.add_argument("--fail-once-at-step", type=int, default=-1,
                   help="the last rank exits 3 at this step, the first time only: a crash, to see a restart")
    p.add_argument("--peer-lost-wait-s", type=float, default=30.0,
                   help="after a collective fails because a peer is gone, or a peer was told to stop and this rank"
                        " was not, how long to wait for the SIGTERM of the change that follows before exiting 1")
    return p.parse_args()


class Log:
    """Human lines on stdout; JSON lines in --log-file when given (appends of one short line each)."""

    def __init__(self, path, rank, world_size, generation):
        self.path, self.rank, self.world_size, self.generation = path, rank, world_size, generation

    def event(self, kind, **fields):
        record = {"event": kind, "time": round(time.time(), 3), "rank": self.rank, "world_size": self.world_size,
                  "generation": self.generation, **fields}
        print(" ".join(f"{k}={v}" for k, v in record.items()), flush=True)
        if self.path:
            with open(self.path, "a") as f:
                f.write(json.dumps(record) + "\n")


def checkpoint_path():
    return os.path.join(os.environ["ARYL_CHECKPOINT_DIR"], "checkpoint.pt")


def replace_atomically(path, write):
    """Writes a temporary file and renames it over ``path``: a reader sees the old file or the new one."""
    tmp = f"{path}.tmp.{os.getpid()}"
    write(tmp)
    os.replace(tmp, path)


def save(step, model, optimizer, log, reason):
    replace_atomically(checkpoint_path(), lambda tmp: torch.save(
        {"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp))
    # Aryl's checkpoint report: the scheduler prices a reclaim by the work since this file last changed.
    marker = os.environ.get("ARYL_CHECKPOINT_MARKER")
    if marker:
        def write_step(tmp):
            with open(tmp, "w") as f:
                f.write(f"{step}\n")
        replace_atomically(marker, write_step)
    log.event("checkpoint", step=step, reason=reason)


def generation_number(rank):
    """ARYL_GENERATION when Aryl's env launcher set it; else (torchrun) rank 0 counts the generations in the checkpoint
    directory and broadcasts the number, so that every rank of one generation logs the same, increasing number."""
    if "ARYL_GENERATION" in os.environ:
        return int(os.environ["ARYL_GENERATION"])
    number = torch.zeros(1, dtype=torch.int64)
    if rank == 0:
        counter = os.path.join(os.environ["ARYL_CHECKPOINT_DIR"], "generation")
        last = 0
        if os.path.exists(counter):
            with open(counter) as f:
                last = int(f.read().strip() or "0")
        number[0] = last + 1

        def write(tmp):
            with open(tmp, "w") as f:
                f.write(f"{last + 1}\n")
        replace_atomically(counter, write)
    dist.broadcast(number, src=0)
    return int(number.item())


def wait_for_sigterm(args):
    """Waits up to --peer-lost-wait-s for the SIGTERM of the change that follows a peer's loss or stop."""
    deadline = time.time() + args.peer_lost_wait_s
    while not stop_requested and time.time() < deadline:
        time.sleep(0.1)
    return stop_requested


def main():
    args = parse_args()
    signal.signal(signal.SIGTERM, on_sigterm)
    started = time.time()
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(1)

    dist.init_process_group("gloo", init_method="env://")
    rendezvous_s = time.time() - started
    log = Log(args.log_file, rank, world_size, generation_number(rank))

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    step = saved = 0
    if os.path.exists(checkpoint_path()):
        state = torch.load(checkpoint_path())
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = saved = state["step"]
    ddp = DistributedDataParallel(model)
    log.event("start", resumed_from=step, rendezvous_s=round(rendezvous_s, 3),
              master=f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}")

    true_w = torch.arange(16, dtype=torch.float32).unsqueeze(1) / 16
    stop = torch.zeros(1)
    try:
        while step < args.steps:
            # Every rank stops at the same step: SIGTERM reaches the ranks at slightly different moments, and a rank
            # that stopped alone would leave the others blocked in their next all-reduce.
            stop[0] = 1.0 if stop_requested else 0.0
            dist.all_reduce(stop, op=dist.ReduceOp.MAX)
            if stop.item() > 0:
                break
            began = time.time()
            g = torch.Generator().manual_seed(step * 1000 + rank)
            x = torch.randn(64, 16, generator=g)
            y = x @ true_w + 0.01 * torch.randn(64, 1, generator=g)
            loss = torch.nn.functional.mse_loss(ddp(x), y)
            optimizer.zero_grad()
            loss.backward()  # DDP averages the gradients over all ranks here
            optimizer.step()
            step += 1
            if step == args.fail_once_at_step and rank == world_size - 1:
                flag = os.path.join(os.environ["ARYL_CHECKPOINT_DIR"], "failed-once")
                if not os.path.exists(flag):
                    open(flag, "w").close()
                    log.event("crash", step=step)
                    sys.stdout.flush()
                    os._exit(3)
            if rank == 0:
                log.event("step", step=step, loss=round(loss.item(), 6))
                if step % args.checkpoint_every == 0:
                    save(step, model, optimizer, log, "periodic")
                    saved = step
            time.sleep(max(0.0, args.step_seconds - (time.time() - began)))
    except RuntimeError as e:
        # A peer is gone (crashed, or killed) in the middle of a collective. The model still holds the last whole
        # step (a failed all-reduce comes before optimizer.step()), so rank 0 keeps it; then every rank waits for the
        # SIGTERM of the generation change that follows, so that its exit is the change's, not a failure of its own.
        log.event("peer-lost", step=step, error=str(e).splitlines()[0][:200])
        if rank == 0 and step > saved:
            save(step, model, optimizer, log, "peer-lost")
        wait_for_sigterm(args)
        log.event("exit", step=step, stopped=stop_requested)
        return 0 if stop_requested else 1

    if rank == 0 and step > saved:
        save(step, model, optimizer, log, "done" if step >= args.steps else "sigterm")
    if step < args.steps and not stop_requested:
        # Another rank was told to stop, not this one (torchrun tells only the agents that change): wait for our own
        # SIGTERM; without one, a node left the group, and exiting 1 makes our agent re-form it without that node.
        log.event("peer-stopped", step=step)
        if not wait_for_sigterm(args):
            log.event("exit", step=step, stopped=False)
            return 1
    log.event("exit", step=step, stopped=stop_requested)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
