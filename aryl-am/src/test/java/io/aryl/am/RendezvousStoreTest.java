package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The AM's c10d store with a real Python and PyTorch ({@code /usr/bin/python3} with Debian's
 * python3-torch, or {@code ARYL_PYTHON}); skipped without one. Its failures need no PyTorch.
 */
@DisplayName("RendezvousStore: the torchrun agents' store, a Python child of the AM")
class RendezvousStoreTest {
  private static String torchPython() throws Exception {
    String named = System.getenv("ARYL_PYTHON");
    String python = named == null || named.isBlank() ? "/usr/bin/python3" : named;
    try {
      Process p =
          new ProcessBuilder(python, "-c", "import torch.distributed")
              .redirectErrorStream(true)
              .start();
      p.getInputStream().readAllBytes();
      assumeTrue(
          p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
          python + " has no PyTorch: skipping");
    } catch (IOException e) {
      assumeTrue(false, python + " is missing: skipping");
    }
    return python;
  }

  private static void assertListening(int port) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      assertThat(s.isConnected()).isTrue();
    }
  }

  @Test
  @DisplayName(
      "it listens on the port it printed; a dead one is restarted on a new port; close ends it")
  void startsRestartsAndCloses() throws Exception {
    // Closed by the test itself, which checks what close does; the finally only cleans up after a
    // failure (a second close does nothing).
    RendezvousStore store = new RendezvousStore(torchPython(), "localhost", 120_000);
    try {
      store.start();
      int first = store.port();
      assertThat(first).isPositive();
      assertThat(store.endpoint()).isEqualTo("localhost:" + first);
      assertListening(first);
      assertThat(store.restartIfDead()).as("restart of a live store").isFalse();

      Process p = store.process();
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      assertThat(store.restartIfDead()).as("restart of a dead store").isTrue();
      assertThat(store.starts()).isEqualTo(2);
      assertListening(store.port());

      Process second = store.process();
      store.close();
      assertThat(second.isAlive()).isFalse();
    } finally {
      store.close();
    }
  }

  @Test
  @DisplayName(
      "it ends by itself once the AM's end of its standard input closes, as when the AM dies")
  void endsWithTheAm() throws Exception {
    try (RendezvousStore store = new RendezvousStore(torchPython(), "localhost", 120_000)) {
      store.start();
      Process p = store.process();
      p.getOutputStream().close();
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("the store ended").isTrue();
    }
  }

  @Test
  @DisplayName("an interpreter that cannot run the store is refused with what happened")
  void aBadInterpreterIsRefused() {
    RendezvousStore missing = new RendezvousStore("/nonexistent/python3", "localhost", 10_000);
    assertThatThrownBy(missing::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/nonexistent/python3");
    // An interpreter that fails (as a Python without torch does) ends before printing a port.
    RendezvousStore failing = new RendezvousStore("/bin/false", "localhost", 10_000);
    assertThatThrownBy(failing::start)
        .isInstanceOf(IOException.class)
        .hasMessage(
            "the rendezvous store (/bin/false -c ...) ended before printing its port (exit status 1); does"
                + " '/bin/false' import torch? (its error output is in AppMaster.stderr)");
  }
}
