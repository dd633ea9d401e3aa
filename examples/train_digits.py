#!/usr/bin/env python3
"""Trains an MLP and a small CNN on scikit-learn's 8x8 digits on kiln.

JAX defines the models, the loss and its gradient, and the training step
(momentum SGD written in jax.numpy). By default the step is plain
`jax.jit(train_step)` run on a kiln device through kiln's PJRT plugin: no
kiln import in the model or the step (this script sets JAX_PLATFORMS=cpu,kiln
unless it is set). With --kiln-jit the step is compiled by `kiln.jit`
instead. Either way, the same step under jax.jit on XLA:CPU trains a second
copy of the parameters from the same initialization on the same batches, the
two steps called alternately, so the step times printed side by side are
measured under the same conditions, and the two copies' final parameters are
compared.

    examples/train_digits.py                      # both models, 12 epochs, through the plugin
    examples/train_digits.py --quick              # 2 epochs, no accuracy requirement
    examples/train_digits.py --kiln-jit --model cnn --backend interpreter
    examples/train_digits.py --devices 4          # data parallel: each batch split over 4 devices
    examples/train_digits.py --devices 2 --parallel tensor --model mlp   # the MLP's hidden layer split
    examples/train_digits.py --processes 2        # data parallel over 2 processes (jax.distributed, Gloo)

With --devices N the step is jit with shardings over a mesh of N devices:
kiln partitions it (docs/sharding.md) and runs it on N kiln devices
(KILN_NUM_DEVICES), XLA:CPU on N host devices; data parallel splits each
batch (parameters replicated, gradients all-reduced), tensor parallel splits
the MLP's hidden layer (batch replicated). With --processes P the script
starts itself P times on this host; the processes meet through
jax.distributed.initialize on a free loopback port, and the step runs over
a mesh of every process's kiln devices (--devices each), its collectives over
Gloo (docs/distributed.md). XLA:CPU then runs the unsplit step on one local
device of each process, the one-device run kiln's result is compared with.
Process 0 prints; a process that fails stops the others.

Exits with status 1 if a model ends below 95% test accuracy (not in --quick).
The data set ships inside scikit-learn: nothing is downloaded.
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import warnings

def _flag(argv, name):
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _launch_processes(count, argv, timeout_s=1800):
    """--processes N: runs this script N times with --process-id i and a
    coordinator on a free loopback port; returns the first failing status."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    children = [subprocess.Popen([sys.executable, __file__, *argv, "--process-id", str(i),
                                  "--coordinator", f"127.0.0.1:{port}"],
                                 stdout=None if i == 0 else subprocess.DEVNULL) for i in range(count)]
    deadline = time.monotonic() + timeout_s
    status = 0
    while any(c.poll() is None for c in children):
        failed = [c for c in children if c.returncode not in (None, 0)]
        if failed or time.monotonic() > deadline:
            status = failed[0].returncode if failed else 1
            for c in children:  # one failed (or the run is too long): the others cannot go on
                if c.poll() is None:
                    c.kill()
            break
        time.sleep(0.2)
    for c in children:
        c.wait()
    return status or next((c.returncode for c in children if c.returncode), 0)


# --processes N (not yet a child): start the N processes, before JAX starts here.
if ((_processes := _flag(sys.argv[1:], "--processes")) is not None and _processes.isdigit()
        and int(_processes) > 1 and _flag(sys.argv[1:], "--process-id") is None):
    sys.exit(_launch_processes(int(_processes), sys.argv[1:]))

# Both platforms, before JAX starts: kiln's (through the plugin) and XLA:CPU
# to compare with. The plugin is found as jax_plugins.kiln on PYTHONPATH.
if "--kiln-jit" not in sys.argv[1:]:
    os.environ.setdefault("JAX_PLATFORMS", "cpu,kiln")


# --devices N: N kiln devices and N XLA:CPU host devices, set before JAX starts.
if (_count := _flag(sys.argv[1:], "--devices")) is not None and _count.isdigit():
    os.environ.setdefault("KILN_NUM_DEVICES", _count)
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               f" --xla_force_host_platform_device_count={_count}").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

REQUIRED_ACCURACY = 0.95
MOMENTUM = 0.9


# -- models ------------------------------------------------------------------------

def init_mlp(rng):
    def dense(m, n):
        return {"w": (rng.standard_normal((m, n)) * np.sqrt(2.0 / m)).astype(np.float32),
                "b": np.zeros(n, np.float32)}
    return [dense(64, 128), dense(128, 10)]


def mlp(params, images):
    x = images.reshape(images.shape[0], -1)
    hidden = jax.nn.relu(x @ params[0]["w"] + params[0]["b"])
    return hidden @ params[1]["w"] + params[1]["b"]


def init_cnn(rng):
    def kernel(h, w, cin, cout):
        return (rng.standard_normal((h, w, cin, cout)) * np.sqrt(2.0 / (h * w * cin))).astype(np.float32)
    return {"conv1": kernel(3, 3, 1, 16), "b1": np.zeros(16, np.float32),
            "conv2": kernel(3, 3, 16, 32), "b2": np.zeros(32, np.float32),
            "dense": (rng.standard_normal((4 * 4 * 32, 10)) * np.sqrt(1.0 / 512)).astype(np.float32),
            "b3": np.zeros(10, np.float32)}


def conv(x, kernel, stride):
    return jax.lax.conv_general_dilated(x, kernel, (stride, stride), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def cnn(params, images):
    x = images[..., None]                                                  # [N, 8, 8, 1]
    x = jax.nn.relu(conv(x, params["conv1"], 1) + params["b1"])            # [N, 8, 8, 16]
    x = jax.nn.relu(conv(x, params["conv2"], 2) + params["b2"])            # [N, 4, 4, 32]
    return x.reshape(x.shape[0], -1) @ params["dense"] + params["b3"]


MODELS = {"mlp": (init_mlp, mlp, 0.05), "cnn": (init_cnn, cnn, 0.05)}  # init, apply, peak learning rate


def make_train_step(apply):
    def loss_fn(params, images, labels):
        log_probs = jax.nn.log_softmax(apply(params, images))
        return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, 10) * log_probs, axis=1))

    def train_step(state, images, labels, learning_rate):
        params, velocity = state
        loss, grads = jax.value_and_grad(loss_fn)(params, images, labels)
        velocity = jax.tree_util.tree_map(lambda v, g: MOMENTUM * v + g, velocity, grads)
        params = jax.tree_util.tree_map(lambda p, v: p - learning_rate * v, params, velocity)
        return (params, velocity), loss
    return train_step


# -- data --------------------------------------------------------------------------

def load_data(seed=0):
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)       # [1797, 8, 8] in [0, 1]
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    test = order[:360]
    train = order[360:]
    return images[train], labels[train], images[test], labels[test]


def batches(rng, count, batch_size):
    """Index arrays of the epoch's full batches (one shape: one compilation)."""
    order = rng.permutation(count)
    return [order[i:i + batch_size] for i in range(0, count - batch_size + 1, batch_size)]


# -- training ----------------------------------------------------------------------

def timed(step, state, *batch):
    start = time.perf_counter()
    state, loss = step(state, *batch)
    jax.block_until_ready(loss) if isinstance(loss, jax.Array) else loss.block_until_ready()
    return state, loss, time.perf_counter() - start


def accuracy(predict, params, images, labels) -> float:
    return float(np.mean(np.argmax(np.asarray(predict(params, images)), axis=1) == labels))


def sharded_steps(train_step, apply, devices, parallel):
    """jit of the step and of predict over a mesh of `devices`, how to place
    the state and how to place a batch: data parallel splits the batch,
    tensor parallel the MLP's hidden layer. Over several processes the
    arguments are global arrays, of which each process holds its blocks."""
    from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P  # noqa: PLC0415
    mesh = Mesh(np.array(devices), ("d",), axis_types=(AxisType.Auto,))
    replicated = NamedSharding(mesh, P())
    split = NamedSharding(mesh, P("d"))
    if parallel == "data":
        params_sharding = replicated
        batch_sharding = split
    else:  # the hidden layer: columns of w1 and b1, rows of w2
        layer = [{"w": NamedSharding(mesh, P(None, "d")), "b": split}, {"w": split, "b": replicated}]
        params_sharding = layer
        batch_sharding = replicated
    state_sharding = (params_sharding, params_sharding)
    step = jax.jit(train_step, donate_argnums=0,
                   in_shardings=(state_sharding, batch_sharding, batch_sharding, replicated),
                   out_shardings=(state_sharding, replicated))
    predict = jax.jit(apply, in_shardings=(params_sharding, replicated), out_shardings=replicated)
    if jax.process_count() == 1:
        return step, predict, lambda tree: jax.device_put(tree, state_sharding), lambda *batch: batch

    def global_array(value, sharding):  # every process has the whole value
        value = np.asarray(value)
        return jax.make_array_from_callback(value.shape, sharding, lambda index: value[index])

    def place_state(tree):  # state_sharding is a prefix of the state's tree
        return jax.tree_util.tree_map(
            lambda sharding, part: jax.tree_util.tree_map(lambda value: global_array(value, sharding), part),
            state_sharding, tree)

    def place_batch(images, labels, learning_rate):
        return (global_array(images, batch_sharding), global_array(labels, batch_sharding),
                global_array(learning_rate, replicated))

    def predict_global(params, images):
        return predict(params, global_array(images, replicated))
    return step, predict_global, place_state, place_batch


def kiln_steps(train_step, apply, backend, devices=1, parallel="data"):
    """The training step and predict function on kiln, and where the state goes.

    backend None: plain jax.jit, with the state on a kiln device (the PJRT
    plugin), or split over `devices` of them; else kiln.jit on that kiln
    back end."""
    if backend is None and jax.process_count() > 1:  # every process's devices
        return sharded_steps(train_step, apply, jax.devices("kiln"), parallel)
    if backend is None and devices > 1:
        return sharded_steps(train_step, apply, jax.devices("kiln")[:devices], parallel)
    if backend is None:
        devices = jax.devices("kiln")
        return (jax.jit(train_step, donate_argnums=0), jax.jit(apply),
                lambda tree: jax.device_put(tree, devices[0]), lambda *batch: batch)
    import kiln  # noqa: PLC0415
    return (kiln.jit(train_step, donate_argnums=0, backend=backend), kiln.jit(apply, backend=backend),
            lambda tree: jax.tree_util.tree_map(np.copy, tree), lambda *batch: batch)


def train(name, epochs, batch_size, backend, devices=1, parallel="data"):
    init, apply, peak_learning_rate = MODELS[name]
    train_images, train_labels, test_images, test_labels = load_data()
    params = init(np.random.default_rng(1))
    state = (params, jax.tree_util.tree_map(np.zeros_like, params))

    train_step = make_train_step(apply)
    kiln_step, kiln_predict, place_on_kiln, kiln_batch = kiln_steps(train_step, apply, backend, devices, parallel)
    cpu = jax.local_devices(backend="cpu")[0]
    processes = jax.process_count()
    if devices > 1 and processes == 1:
        jax_step, jax_predict, place_on_cpu, _ = sharded_steps(train_step, apply, jax.devices("cpu")[:devices],
                                                               parallel)
    else:
        jax_step, jax_predict = jax.jit(train_step, donate_argnums=0), jax.jit(apply)
        place_on_cpu = lambda tree: jax.device_put(tree, cpu)  # noqa: E731
    kiln_state = place_on_kiln(state)
    jax_state = place_on_cpu(state)

    start = time.perf_counter()
    first = batches(np.random.default_rng(0), len(train_labels), batch_size)[0]
    # Compile both (not timed) with a step on copies of the state; its results are dropped.
    warmup = (train_images[first], train_labels[first], np.float32(0.0))
    kiln_step(place_on_kiln(state), *kiln_batch(*warmup))
    jax_step(place_on_cpu(state), *warmup)
    compile_seconds = time.perf_counter() - start
    how = "jax.jit on the kiln platform (PJRT plugin)" if backend is None else f"kiln.jit, back end {backend}"
    if processes > 1:
        how += (f", {parallel} parallel over {len(jax.devices('kiln'))} devices of {processes} processes "
                f"(XLA:CPU on one device)")
    elif devices > 1:
        how += f", {parallel} parallel over {devices} devices (XLA:CPU on {devices} host devices)"
    print(f"{name}: {sum(np.size(p) for p in jax.tree_util.tree_leaves(params))} parameters, "
          f"first step (JAX tracing + kiln compile) {compile_seconds:.2f} s, {how}")

    rng = np.random.default_rng(2)
    for epoch in range(1, epochs + 1):
        # Cosine decay to zero: the last epochs settle instead of jumping around.
        learning_rate = np.float32(peak_learning_rate * 0.5 * (1 + np.cos(np.pi * (epoch - 1) / epochs)))
        losses, kiln_times, jax_times = [], [], []
        for index in batches(rng, len(train_labels), batch_size):
            batch = train_images[index], train_labels[index], learning_rate
            kiln_state, loss, seconds = timed(kiln_step, kiln_state, *kiln_batch(*batch))
            kiln_times.append(seconds)
            jax_state, _, seconds = timed(jax_step, jax_state, *batch)
            jax_times.append(seconds)
            losses.append(float(loss))
        test_accuracy = accuracy(kiln_predict, kiln_state[0], test_images, test_labels)
        print(f"{name} epoch {epoch:2d}/{epochs}  loss {np.mean(losses):.4f}  "
              f"test accuracy {100 * test_accuracy:5.1f}%  step: kiln {1e3 * statistics.median(kiln_times):.3f} ms"
              f"  jax.jit {1e3 * statistics.median(jax_times):.3f} ms", flush=True)

    jax_accuracy = accuracy(jax_predict, jax_state[0], test_images, test_labels)  # on the cpu device(s)
    difference = max(float(np.max(np.abs(np.asarray(k) - np.asarray(j))))
                     for k, j in zip(jax.tree_util.tree_leaves(kiln_state[0]), jax.tree_util.tree_leaves(jax_state[0])))
    print(f"{name}: final test accuracy kiln {100 * test_accuracy:.1f}%, jax.jit {100 * jax_accuracy:.1f}%; "
          f"largest parameter difference kiln vs jax.jit {difference:.2e}")
    return test_accuracy


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=None, help="epochs per model (default 12, 2 with --quick)")
    parser.add_argument("--kiln-jit", action="store_true",
                        help="compile the step with kiln.jit instead of jax.jit on the kiln platform")
    parser.add_argument("--backend", default=None,
                        help="with --kiln-jit: kiln back end, cpu or interpreter (default: kiln.config.backend)")
    parser.add_argument("--model", choices=["mlp", "cnn", "both"], default="both")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--quick", action="store_true", help="a short smoke run: 2 epochs, no accuracy requirement")
    parser.add_argument("--devices", type=int, default=1,
                        help="run the step split over N devices (jit with shardings; kiln partitions it)")
    parser.add_argument("--parallel", choices=["data", "tensor"], default="data",
                        help="with --devices: split each batch (data) or the MLP's hidden layer (tensor)")
    parser.add_argument("--processes", type=int, default=1,
                        help="run the step over P processes of --devices kiln devices each (jax.distributed, "
                             "collectives over Gloo); process 0 prints")
    parser.add_argument("--process-id", type=int, default=None, help=argparse.SUPPRESS)  # set by --processes
    parser.add_argument("--coordinator", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if (args.devices > 1 or args.processes > 1) and args.kiln_jit:
        parser.error("--devices and --processes run through the plugin (jax.jit on kiln devices), not --kiln-jit")
    if args.process_id is not None:
        jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.processes,
                                   process_id=args.process_id, initialization_timeout=120)
    if args.parallel == "tensor" and args.model != "mlp":
        parser.error("--parallel tensor splits the MLP's hidden layer: use it with --model mlp")
    epochs = args.epochs or (2 if args.quick else 12)
    if args.kiln_jit:
        import kiln  # noqa: PLC0415
        backend = args.backend or kiln.config.backend
    else:
        if args.backend:
            parser.error("--backend goes with --kiln-jit (the plugin runs kiln's cpu back end)")
        try:
            jax.devices("kiln"), jax.devices("cpu")
        except RuntimeError:
            parser.error("jax.jit on kiln needs JAX_PLATFORMS=cpu,kiln and kiln's plugin on PYTHONPATH "
                         "(<build>/python; see docs/pjrt.md)")
        backend = None
    warnings.filterwarnings("ignore", message="Some donated buffers were not usable")

    start = time.perf_counter()
    names = ["mlp", "cnn"] if args.model == "both" else [args.model]
    results = {name: train(name, epochs, args.batch_size, backend, args.devices, args.parallel) for name in names}
    print(f"total {time.perf_counter() - start:.1f} s")
    if args.quick:
        return 0
    failed = [name for name, acc in results.items() if acc < REQUIRED_ACCURACY]
    for name in failed:
        print(f"{name}: test accuracy {100 * results[name]:.1f}% is below {100 * REQUIRED_ACCURACY:.0f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
