"""The process that holds a unit's namespace (bubblewrap) or container (docker) open.

It runs *inside*, as PID 1, on whatever Python 3 the inside has, so it uses the standard library
only and is passed as source (`python3 -c`); nothing here imports Coder Eval. Its jobs:

- stay alive while the harness holds its stdin; when stdin closes (the harness finished the unit,
  or died) it exits, and with PID 1 gone the kernel kills everything left in the namespace;
- reap orphans (a PID 1 duty), so processes the unit left behind do not pile up as zombies;
- relay TCP connections to 127.0.0.1:<port> inside to a Unix socket the harness bridged in: the
  only way out of a namespace without a network, used to reach the unit's own gateway route and,
  under `network: allowlist`, its egress proxy.

Usage: python3 -c "$(source)" [<port>:<unix socket path> ...]   (none: no relay)
"""

HOLDER_SOURCE = r"""
import os, signal, socket, sys, threading

def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass

def serve(client, path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
    pump(client, upstream)

def relay(port, path):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(64)
    return server

def accept_loop(server, path):
    while True:
        client, _ = server.accept()
        threading.Thread(target=serve, args=(client, path), daemon=True).start()

def reap():
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            signal.sigwait({signal.SIGCHLD})
        except InterruptedError:
            pass

def main():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    for pair in sys.argv[1:]:
        port, _, path = pair.partition(":")
        server = relay(int(port), path)
        threading.Thread(target=accept_loop, args=(server, path), daemon=True).start()
    threading.Thread(target=reap, daemon=True).start()
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)

main()
"""
