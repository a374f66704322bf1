package io.aryl.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.labels.LoanLedger.Epoch;
import io.aryl.labels.LoanLedger.FencedException;
import io.aryl.labels.LoanLedger.PutEntry;
import io.aryl.labels.LoanLedger.PutIntent;
import io.aryl.labels.LoanLedger.DeleteIntent;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LoanLedgerTest {
  private TestingServer zk;
  private CuratorFramework a;
  private CuratorFramework b;

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer();
    a = client();
    b = client();
  }

  @AfterEach
  void stop() throws Exception {
    a.close();
    b.close();
    zk.close();
  }

  private CuratorFramework client() throws InterruptedException {
    CuratorFramework c = CuratorFrameworkFactory.newClient(zk.getConnectString(), 10_000, 5_000, new RetryOneTime(100));
    c.start();
    c.blockUntilConnected();
    return c;
  }

  @Test
  void aDeposedLeadersWriteIsRefusedAndTheSuccessorsStands() throws Exception {
    LoanLedger la = new LoanLedger(a, "/aryl/test");
    LoanLedger lb = new LoanLedger(b, "/aryl/test");
    Epoch first = la.claimEpoch("a");
    la.commit(first, List.of(new PutEntry(LoanEntry.home("n1:1", first.version(), 1, "seen"), -1)));

    Epoch second = lb.claimEpoch("b");
    assertThat(second.version()).isGreaterThan(first.version());
    int v = lb.entries().get("n1:1").version();
    lb.commit(second, List.of(new PutEntry(LoanEntry.loaned("n1:1", second.version(), 2, "by b"), v)));

    // a still believes it leads and writes with the version it read: refused, whatever version it names.
    int now = la.entries().get("n1:1").version();
    assertThatThrownBy(() -> la.commit(first, List.of(
        new PutEntry(LoanEntry.home("n1:1", first.version(), 3, "by a"), now))))
        .isInstanceOf(FencedException.class).hasMessageContaining("epoch " + first.version());
    assertThatThrownBy(() -> la.commit(first, List.of(
        new PutEntry(LoanEntry.home("n2:1", first.version(), 3, "new by a"), -1))))
        .isInstanceOf(FencedException.class);

    assertThat(la.entries()).hasSize(1);
    LoanEntry stands = la.entries().get("n1:1").value();
    assertThat(stands.state()).isEqualTo(LoanState.LOANED);
    assertThat(stands.reason()).isEqualTo("by b");
    assertThat(la.currentEpoch()).isEqualTo(new Epoch(second.version(), "b"));
  }

  @Test
  void aStaleEntryVersionIsRefusedEvenUnderTheCurrentEpoch() throws Exception {
    LoanLedger l = new LoanLedger(a, "/aryl/test");
    Epoch e = l.claimEpoch("a");
    l.commit(e, List.of(new PutEntry(LoanEntry.home("n1:1", e.version(), 1, "seen"), -1)));
    l.commit(e, List.of(new PutEntry(LoanEntry.loaned("n1:1", e.version(), 2, "loan"), 0)));
    assertThatThrownBy(() -> l.commit(e, List.of(new PutEntry(LoanEntry.home("n1:1", e.version(), 3, "x"), 0))))
        .isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> l.commit(e, List.of(new PutEntry(LoanEntry.home("n1:1", e.version(), 3, "x"), -1))))
        .as("creating what exists").isInstanceOf(FencedException.class);
  }

  @Test
  void aTransactionWritesAllOrNothing() throws Exception {
    LoanLedger l = new LoanLedger(a, "/aryl/test");
    Epoch e = l.claimEpoch("a");
    l.commit(e, List.of(new PutIntent(new ReclaimIntent(2, 10_000, 1_000, e.version()), -1),
        new PutEntry(LoanEntry.loaned("n1:1", e.version(), 1, "loan"), -1)));
    assertThat(l.intent()).isPresent();
    assertThatThrownBy(() -> l.commit(e, List.of(
        new PutEntry(LoanEntry.reclaiming("n1:1", e.version(), 2, "back", 7, 10_000), 0),
        new DeleteIntent(5)))).isInstanceOf(FencedException.class);
    assertThat(l.entries().get("n1:1").value().state()).as("first write undone").isEqualTo(LoanState.LOANED);
    l.commit(e, List.of(new PutEntry(LoanEntry.reclaiming("n1:1", e.version(), 2, "back", 7, 10_000), 0),
        new DeleteIntent(0)));
    assertThat(l.intent()).isEmpty();
    assertThat(l.entries().get("n1:1").value()).isEqualTo(
        LoanEntry.reclaiming("n1:1", e.version(), 2, "back", 7, 10_000));
  }

  @Test
  void entriesCheckTheirFields() {
    assertThatThrownBy(() -> LoanEntry.reclaiming("n", 0, 0, "r", 0, 5)).hasMessageContaining("reclaimId=0");
    assertThatThrownBy(() -> LoanEntry.home(" ", 0, 0, "r")).hasMessageContaining("node");
    assertThatThrownBy(() -> new LoanEntry("n", LoanState.LOANED, 0, 0, "r", 3, 0))
        .hasMessageContaining("reclaimId=3");
    assertThatThrownBy(() -> new ReclaimIntent(0, 1, 1, 0)).hasMessageContaining("nodes");
  }
}
