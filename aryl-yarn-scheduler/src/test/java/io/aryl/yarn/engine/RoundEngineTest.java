package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.INFERENCE;
import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.aryl.api.loan.LoanDemand;
import io.aryl.yarn.reclaim.Reclaim;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The round as a function: a cluster in, promises and actions out. Each test writes the cluster by
 * hand, runs rounds, and does to the cluster what the actions ask (or, to show what the engine does
 * then, not).
 */
@DisplayName("RoundEngine: what the ResourceManager shows in, promises and actions out")
class RoundEngineTest {
  static final long GRACE_MS = 2_000;
  static final Map<String, String> CONF =
      Map.of(
          "aryl.scheduler.shrink-grace-ms", String.valueOf(GRACE_MS),
          "aryl.scheduler.partial-gang-grace-ms", "5000",
          "aryl.scheduler.reclaim.default-deadline-ms", "60000");

  EngineRig rig = new EngineRig(CONF);

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  static List<String> noticed(Outcome o) {
    return o.actions(Action.Notice.class).stream().map(Action.Notice::containerId).toList();
  }

  static List<String> killed(Outcome o) {
    return o.actions(Action.Kill.class).stream().map(Action.Kill::containerId).toList();
  }

  static List<String> granted(Outcome o) {
    return o.actions(Action.Grant.class).stream().map(Action.Grant::appId).toList();
  }

  @Nested
  @DisplayName("admission and elastic width")
  class Admission {
    @Test
    @DisplayName("a gang that fits is admitted whole and its grant goes out in the same round")
    void gangAdmitted() {
      rig.node("t1", TRAINING, 4).job("a", 2, 2, 2, 3_600);
      Outcome o = rig.round(1_000_000);
      assertThat(granted(o)).containsExactly("a");
      assertThat(o.promises().book().target("a").workersByServer()).isEqualTo(Map.of("t1", 2));
      assertThat(rig.lifecycle.get()).isEqualTo(Lifecycle.State.ACTIVE);
    }

    @Test
    @DisplayName("a gang that does not fit is not admitted, and says why")
    void gangWaits() {
      rig.node("t1", TRAINING, 4).job("a", 3, 3, 2, 3_600);
      Outcome o = rig.round(1_000_000);
      assertThat(granted(o)).isEmpty();
      assertThat(o.promises().book().admitted("a")).isFalse();
      assertThat(o.actions(Action.Diagnose.class))
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.appId()).isEqualTo("a");
                assertThat(d.message())
                    .startsWith("Aryl: waiting for 3 workers x 2 GPUs (6 GPUs) on training")
                    .contains("the training pool holds at most 2 workers of 2 GPUs now");
              });
    }

    @Test
    @DisplayName("an elastic job grows into spare GPUs as far as its ApplicationMaster asks")
    void grows() {
      rig.node("t1", TRAINING, 4).job("a", 1, 4, 1, 36_000).asking("a", 4);
      Outcome o = rig.round(1_000_000);
      assertThat(o.promises().book().target("a").totalWorkers()).isEqualTo(4);
      rig.asking("a", 2);
      rig.node("t2", TRAINING, 4);
      assertThat(rig.after(1_000).promises().book().target("a").totalWorkers())
          .as("it asked for 2 now: no more is promised than asked")
          .isEqualTo(2);
    }
  }

  @Nested
  @DisplayName(
      "shrinks: noticed once stored, killed at the grace unless given back or wanted again")
  class Shrinks {
    /** a holds all 4 GPUs of t1 at 1 worker each (min 1); b, a shorter gang of 2, arrives. */
    void fullPoolThenAGang() {
      rig.node("t1", TRAINING, 4).job("a", 1, 4, 1, 36_000);
      for (int i = 0; i < 4; i++) {
        rig.worker("a", "t1");
      }
      rig.asking("a", 0).job("b", 2, 2, 1, 600);
    }

    @Test
    @DisplayName(
        "the newest workers of the job above its minimum are asked back for the gang, then killed at the grace")
    void shrinkForAGang() {
      fullPoolThenAGang();
      Outcome first = rig.round(1_000_000);
      assertThat(noticed(first))
          .as("a's two newest workers")
          .containsExactly("container_4", "container_3");
      assertThat(first.promises().book().target("b").totalWorkers()).isEqualTo(2);
      assertThat(first.tally().containersShrunk()).isEqualTo(2);

      Outcome during = rig.after(1_000);
      assertThat(noticed(during)).as("noticed once").isEmpty();
      assertThat(killed(during)).isEmpty();
      assertThat(during.promises().book().target("b").totalWorkers())
          .as("the gang keeps its promise while its room" + " drains")
          .isEqualTo(2);

      Outcome due = rig.after(GRACE_MS);
      assertThat(killed(due)).containsExactlyInAnyOrder("container_3", "container_4");
    }

    @Test
    @DisplayName("a worker given back before the grace is not killed")
    void givenBack() {
      fullPoolThenAGang();
      rig.round(1_000_000);
      rig.end("container_3");
      rig.end("container_4");
      assertThat(killed(rig.after(GRACE_MS + 1_000))).isEmpty();
    }

    @Test
    @DisplayName(
        "nothing is asked back while the drains cannot be stored; the next round stores and notices them")
    void noticeOnlyOnceStored() {
      fullPoolThenAGang();
      rig.store.failing = new IOException("disk full");
      Outcome unstored = rig.round(1_000_000);
      assertThat(noticed(unstored)).isEmpty();
      assertThat(killed(unstored)).isEmpty();
      rig.store.failing = null;
      assertThat(noticed(rig.after(1_000))).containsExactlyInAnyOrder("container_3", "container_4");
    }
  }

  @Nested
  @DisplayName("plain applications (no Aryl tags) in the training queue")
  class PlainApplications {
    @Test
    @DisplayName(
        "Spark asking for GPU executors beside an elastic job whose workers exit slowly: every round"
            + " succeeds, the job is shrunk, killed at the grace, and grows back once Spark is done")
    void sparkBesideASlowElasticJob() {
      rig.node("t1", TRAINING, 4).job("a", 1, 4, 1, 36_000);
      for (int i = 0; i < 4; i++) {
        rig.worker("a", "t1");
      }
      rig.asking("a", 0).plain("spark", 2, 1);

      Outcome first = rig.round(1_000_000);
      assertThat(noticed(first)).containsExactly("container_4", "container_3");
      assertThat(first.promises().book().target("spark").workersByServer())
          .isEqualTo(Map.of("t1", 2));

      // The workers do not exit: every round still succeeds and keeps Spark's room promised.
      for (int i = 0; i < 2; i++) {
        Outcome waiting = rig.after(500);
        assertThat(waiting.promises().book().target("spark").totalWorkers()).isEqualTo(2);
        assertThat(killed(waiting)).isEmpty();
      }
      Outcome due = rig.after(GRACE_MS);
      assertThat(killed(due)).containsExactlyInAnyOrder("container_3", "container_4");
      rig.kill(due);

      // Spark's executors start, run and end; the job asks for its workers back and gets them.
      rig.plain("spark", 0, 1);
      String e1 = rig.start("spark", "t1", 1, false);
      String e2 = rig.start("spark", "t1", 1, false);
      assertThat(rig.after(1_000).promises().book().target("a").totalWorkers()).isEqualTo(2);
      rig.end(e1);
      rig.end(e2);
      rig.asking("a", 2);
      Outcome back = rig.after(1_000);
      assertThat(back.promises().book().target("a").totalWorkers()).as("grown back").isEqualTo(4);
      assertThat(granted(back)).contains("a");
    }
  }

  @Nested
  @DisplayName("killed containers on their way out")
  class KilledContainers {
    @Test
    @DisplayName(
        "a worker killed at its grace but still on its node (its kill on the way) is room for the gang it was"
            + " drained for: nothing more is drained")
    void killedWorkerStillListedIsRoom() {
      rig.node("t1", TRAINING, 8).job("a", 2, 8, 1, 36_000);
      for (int i = 0; i < 8; i++) {
        rig.worker("a", "t1");
      }
      rig.asking("a", 0).plain("spark", 2, 2);
      assertThat(noticed(rig.round(1_000_000))).hasSize(4);
      List<String> dying = killed(rig.after(GRACE_MS));
      assertThat(dying).hasSize(4);

      // Three kills have landed, the fourth is still on its way; Spark's first executor started.
      dying.subList(0, 3).forEach(rig::end);
      rig.start("spark", "t1", 2, false);
      rig.plain("spark", 1, 2);
      Outcome next = rig.after(250);
      assertThat(noticed(next)).as("workers drained again").isEmpty();
      assertThat(next.promises().book().target("a").totalWorkers()).isEqualTo(4);
      assertThat(next.promises().book().target("spark").workersByServer())
          .isEqualTo(Map.of("t1", 1));
    }
  }

  @Nested
  @DisplayName("reclaims: loaned nodes go back to inference")
  class Reclaims {
    /**
     * i1 is inference's (seen labelled inference), lent to training, and a's extra workers run
     * there.
     */
    void lentNodeWithExtraWorkers() {
      rig.node("t1", TRAINING, 2).node("i1", INFERENCE, 2).job("a", 2, 4, 1, 36_000);
      rig.round(1_000_000); // i1 seen in the inference pool
      rig.node("i1").label = TRAINING; // lent
      rig.worker("a", "t1");
      rig.worker("a", "t1");
      rig.worker("a", "i1");
      rig.worker("a", "i1");
      rig.asking("a", 0);
      rig.after(1_000);
    }

    @Test
    @DisplayName(
        "a lent node is fenced, its flexible workers shrunk, killed at the grace, and it is relabelled once"
            + " empty")
    void reclaimShrinks() {
      lentNodeWithExtraWorkers();
      RoundEngine.Started started = rig.engine.reclaim(rig.view(), 1, null, 0);
      Reclaim r = started.reclaim();
      assertThat(r.nodes()).containsExactly("i1");
      assertThat(r.jobActions()).isEqualTo(Map.of("a", "SHRINK"));
      assertThat(started.outcome().promises().fenced()).containsExactly("i1");
      assertThat(noticed(started.outcome()))
          .containsExactlyInAnyOrder("container_3", "container_4");

      Outcome due = rig.after(GRACE_MS);
      assertThat(killed(due)).containsExactlyInAnyOrder("container_3", "container_4");
      rig.kill(due);
      Outcome empty = rig.after(1_000);
      assertThat(empty.actions(Action.Relabel.class))
          .containsExactly(new Action.Relabel("i1", INFERENCE));
      rig.relabel(empty);
      assertThat(r.phase()).isEqualTo(Reclaim.Phase.DONE);
      assertThat(r.returnedNodes()).containsExactly("i1");
      assertThat(rig.after(1_000).promises().fenced()).isEmpty();
    }

    @Test
    @DisplayName(
        "a node relabelled before its record was stored is recorded returned by the next scheduler")
    void relabelledBeforeARestart() throws InterruptedException {
      lentNodeWithExtraWorkers();
      rig.engine.reclaim(rig.view(), 1, null, 0);
      rig.end("container_3");
      rig.end("container_4");
      Outcome empty = rig.after(1_000);
      assertThat(empty.actions(Action.Relabel.class)).hasSize(1);
      rig.node("i1").label = INFERENCE; // relabelled, and the scheduler stops before it records it
      EngineRig next = rig.restart();
      next.round(rig.nowMs + 1_000);
      assertThat(next.engine.status().reclaimsDone())
          .singleElement()
          .satisfies(done -> assertThat(done.returnedNodes()).containsExactly("i1"));
      next.close();
    }

    @Test
    @DisplayName(
        "a node that leaves the cluster before it is back is replaced by another loaned node")
    void lostNodeReplaced() {
      rig.node("t1", TRAINING, 2)
          .node("i1", INFERENCE, 2)
          .node("i2", INFERENCE, 2)
          .job("a", 2, 6, 1, 36_000);
      rig.round(1_000_000);
      rig.node("i1").label = TRAINING;
      rig.node("i2").label = TRAINING;
      rig.worker("a", "t1");
      rig.worker("a", "t1");
      rig.worker("a", "i1");
      rig.worker("a", "i2");
      rig.asking("a", 0);
      rig.after(1_000);
      Reclaim r = rig.engine.reclaim(rig.view(), 1, null, 0).reclaim();
      String chosen = r.nodes().get(0);
      String other = chosen.equals("i1") ? "i2" : "i1";
      rig.lose(chosen);
      Outcome o = rig.after(1_000);
      assertThat(r.lostNodes()).containsExactly(chosen);
      assertThat(r.replacements()).isEqualTo(Map.of(chosen, other));
      assertThat(o.promises().fenced()).containsExactly(other);
    }

    @Test
    @DisplayName("more nodes than are on loan is refused, naming how many are")
    void tooMany() {
      lentNodeWithExtraWorkers();
      assertThatThrownBy(() -> rig.engine.reclaim(rig.view(), 2, null, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("reclaim of 2 node(s) refused");
      assertThat(rig.engine.promises().fenced()).isEmpty();
    }
  }

  @Nested
  @DisplayName(
      "loans: the scheduler alone lends inference nodes and takes them back, to meet the loan target")
  class Loans {
    /** Two idle inference nodes at home and a training node, seen by one round. */
    void twoIdleInferenceNodes() {
      rig.node("t1", TRAINING, 4).node("i1", INFERENCE, 4).node("i2", INFERENCE, 4);
      rig.round(1_000_000);
    }

    LoanTargetRecordAssert target(int maxOnLoan) {
      return new LoanTargetRecordAssert(
          rig.engine.acceptLoanTarget(
              rig.view(), 3, "controller-1", maxOnLoan, 0, rig.nowMs, "rate 10 rps", null));
    }

    record LoanTargetRecordAssert(io.aryl.yarn.state.LoanTargetRecord record) {}

    @Test
    @DisplayName("without a target nothing is lent")
    void noTargetNoLoan() {
      twoIdleInferenceNodes();
      assertThat(rig.after(1_000).actions(Action.Relabel.class)).isEmpty();
    }

    @Test
    @DisplayName(
        "a target lends idle nodes at home, fenced from the moment they are chosen, lent once relabelled")
    void targetLends() {
      twoIdleInferenceNodes();
      target(1);
      Outcome o = rig.after(1_000);
      assertThat(o.actions(Action.Relabel.class))
          .containsExactly(new Action.Relabel("i1", TRAINING));
      assertThat(o.promises().fenced())
          .as("no inference container lands on it before the relabel")
          .containsExactly("i1");
      assertThat(rig.store.sections.get("pools")).asString().contains("\"i1\":\"LENDING\"");
      rig.relabel(o);
      Outcome after = rig.after(1_000);
      assertThat(after.promises().fenced()).isEmpty();
      assertThat(after.gauges().loanedNodes()).isEqualTo(1);
      assertThat(rig.store.sections.get("pools")).asString().contains("\"i1\":\"LENT\"");
      assertThat(after.actions(Action.Relabel.class)).as("the target is met").isEmpty();
    }

    @Test
    @DisplayName("a node something runs on is not lent")
    void busyNodeNotLent() {
      twoIdleInferenceNodes();
      rig.start("serving", "i1", 4, false);
      target(2);
      assertThat(rig.after(1_000).actions(Action.Relabel.class))
          .containsExactly(new Action.Relabel("i2", TRAINING));
    }

    @Test
    @DisplayName(
        "a target below what is on loan asks the difference back, and a node still being lent just stays home")
    void targetLowered() {
      twoIdleInferenceNodes();
      target(2);
      Outcome lending = rig.after(1_000);
      rig.node("i1").label = TRAINING; // only i1's relabel went through before the target fell
      rig.engine.relabelled("i1", TRAINING, rig.nowMs);
      target(0);
      Outcome o = rig.after(1_000);
      assertThat(lending.actions(Action.Relabel.class)).hasSize(2);
      assertThat(rig.engine.status().reclaimsInFlight())
          .singleElement()
          .satisfies(r -> assertThat(r.nodes()).containsExactly("i1"));
      assertThat(o.actions(Action.Relabel.class))
          .as("i1 is empty: returned at once")
          .containsExactly(new Action.Relabel("i1", INFERENCE));
      rig.relabel(o);
      assertThat(rig.engine.onLoan()).isZero();
      assertThat(rig.store.sections.get("pools")).asString().doesNotContain("LENDING");
    }

    @Test
    @DisplayName(
        "a lent node whose NodeManager is gone is not asked back while it is gone: the others above the"
            + " target are, and it is once it re-registers")
    void aLostLentNodeWaitsForItsNodeManager() {
      twoIdleInferenceNodes();
      target(2);
      rig.relabel(rig.after(1_000));
      rig.after(1_000);
      assertThat(rig.engine.onLoan()).isEqualTo(2);
      rig.lose("i2");
      target(0);
      Outcome o = rig.after(1_000);
      assertThat(rig.engine.status().reclaimsInFlight())
          .as("only i1 can be returned now")
          .singleElement()
          .satisfies(r -> assertThat(r.nodes()).containsExactly("i1"));
      rig.relabel(o);
      rig.after(1_000);
      assertThat(rig.engine.onLoan()).as("i2, gone, is still lent").isEqualTo(1);
      rig.node("i2", TRAINING, 4); // re-registers, still labelled training
      Outcome back = rig.after(1_000);
      rig.relabel(back);
      rig.after(1_000);
      assertThat(rig.engine.onLoan()).as("i2 asked back once it re-registered").isZero();
    }

    @Test
    @DisplayName("a target of an older epoch is refused and changes nothing")
    void staleEpoch() {
      twoIdleInferenceNodes();
      target(1);
      assertThatThrownBy(
              () ->
                  rig.engine.acceptLoanTarget(
                      rig.view(), 2, "controller-0", 2, 0, rig.nowMs, "", null))
          .isInstanceOf(io.aryl.yarn.engine.StaleEpochException.class)
          .hasMessageStartingWith(
              "loan target of epoch 2 refused: the leader in force is controller-1 with epoch 3");
      assertThat(rig.engine.loanTarget().maxOnLoan()).isEqualTo(1);
    }

    @Test
    @DisplayName(
        "a node lent by hand is stored as being lent, then relabelled; refused while a controller decides")
    void byHand() {
      twoIdleInferenceNodes();
      Outcome o = rig.engine.lend(rig.view(), List.of("i2"));
      assertThat(o.actions(Action.Relabel.class))
          .containsExactly(new Action.Relabel("i2", TRAINING));
      assertThatThrownBy(() -> rig.engine.lend(rig.view(), List.of("t1")))
          .hasMessage("node t1 cannot be lent: it is not an inference node");
      assertThatThrownBy(() -> rig.engine.lend(rig.view(), List.of("i2")))
          .hasMessage("node i2 cannot be lent: it is lending already");
      target(1);
      assertThatThrownBy(() -> rig.engine.lend(rig.view(), List.of("i1")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("controller-1 (epoch 3) decides");
    }

    @Test
    @DisplayName(
        "a reclaim asked by hand lowers the target, so the nodes are not lent again before the controller's"
            + " next decision")
    void reclaimByHandLowersTheTarget() {
      twoIdleInferenceNodes();
      target(2);
      rig.relabel(rig.after(1_000));
      rig.after(1_000);
      rig.engine.reclaim(rig.view(), 1, null, 0);
      assertThat(rig.engine.loanTarget().maxOnLoan()).isEqualTo(1);
      assertThat(rig.engine.loanTarget().reason())
          .endsWith("lowered to 1 by a reclaim asked by hand");
      rig.relabel(rig.after(1_000));
      assertThat(rig.after(1_000).actions(Action.Relabel.class)).as("not lent again").isEmpty();
    }

    @Test
    @DisplayName(
        "the demand a target was decided on is shown with it, kept through a reclaim by hand, and not"
            + " stored: a restarted scheduler shows none until the controller's next target")
    void theDemandIsShownWithTheTarget() throws InterruptedException {
      twoIdleInferenceNodes();
      LoanDemand demand = new LoanDemand(120, 150, 2, 4_800);
      rig.engine.acceptLoanTarget(
          rig.view(), 3, "controller-1", 2, 0, rig.nowMs, "rate 120 rps", demand);
      assertThat(rig.engine.status().loanTarget().demand()).isEqualTo(demand);
      rig.relabel(rig.after(1_000));
      rig.after(1_000);
      rig.engine.reclaim(rig.view(), 1, null, 0);
      assertThat(rig.engine.status().loanTarget().maxOnLoan()).isEqualTo(1);
      assertThat(rig.engine.status().loanTarget().demand())
          .as("what the controller saw stands")
          .isEqualTo(demand);
      EngineRig next = rig.restart();
      next.round(rig.nowMs + 1_000);
      assertThat(next.engine.status().loanTarget().maxOnLoan()).isEqualTo(1);
      assertThat(next.engine.status().loanTarget().demand()).isNull();
      next.close();
    }

    @Test
    @DisplayName(
        "a loan decided and stored but not relabelled before a restart is carried out by the next scheduler")
    void lendingSurvivesARestart() throws InterruptedException {
      twoIdleInferenceNodes();
      target(1);
      Outcome o = rig.after(1_000); // the relabel is never carried out: the scheduler stops
      assertThat(o.actions(Action.Relabel.class)).hasSize(1);
      EngineRig next = rig.restart();
      Outcome resumed = next.round(rig.nowMs + 1_000);
      assertThat(resumed.actions(Action.Relabel.class))
          .containsExactly(new Action.Relabel("i1", TRAINING));
      assertThat(next.engine.loanTarget().epoch()).as("the target survives too").isEqualTo(3);
      next.close();
    }
  }

  @Nested
  @DisplayName("partial gangs")
  class PartialGangs {
    @Test
    @DisplayName(
        "a gang left below its minimum is drained after the grace, unless it is whole again by then")
    void drainedAfterTheGrace() {
      rig.node("t1", TRAINING, 2).job("a", 2, 2, 2, 3_600);
      rig.worker("a", "t1");
      rig.asking("a", 0);
      Outcome first = rig.round(1_000_000);
      assertThat(noticed(first)).isEmpty();
      assertThat(noticed(rig.after(4_000))).isEmpty();
      assertThat(noticed(rig.after(1_000))).containsExactly("container_1");
    }
  }

  @Nested
  @DisplayName("a newly active scheduler")
  class Recovery {
    @Test
    @DisplayName(
        "acts on nothing until the nodes its jobs ran on re-registered, then announces the stored drains"
            + " again")
    void waitsForLateNodes() throws InterruptedException {
      rig.node("t1", TRAINING, 4).node("t2", TRAINING, 4).job("a", 1, 8, 1, 36_000);
      for (int i = 0; i < 4; i++) {
        rig.worker("a", "t1");
        rig.worker("a", "t2");
      }
      rig.asking("a", 0).job("b", 4, 4, 1, 600);
      Outcome before = rig.round(1_000_000);
      assertThat(noticed(before)).hasSize(4);
      rig.flush();

      EngineRig next = rig.restart();
      EngineRig.Node t2 = next.node("t2");
      next.lose("t2"); // its NodeManager has not re-registered yet
      Outcome waiting = next.round(rig.nowMs + 1_000);
      assertThat(next.lifecycle.get()).isEqualTo(Lifecycle.State.RECOVERING);
      assertThat(waiting.actions()).isEmpty();
      assertThat(waiting.promises().book().targets()).isEmpty();
      assertThatThrownBy(() -> next.engine.reclaim(next.view(), 1, null, 0))
          .isInstanceOf(ArylUnavailableException.class)
          .hasMessageContaining("t2");

      next.node("t2", TRAINING, 4).node("t2").containers.putAll(t2.containers);
      Outcome back = next.after(1_000);
      assertThat(next.lifecycle.get()).isEqualTo(Lifecycle.State.ACTIVE);
      assertThat(noticed(back))
          .as("the drains its predecessor stored, told again")
          .containsAll(noticed(before));
      next.close();
    }
  }

  @Nested
  @DisplayName("a scheduler another one took over from")
  class Deposed {
    @Test
    @DisplayName("stops acting at its first write after the claim: nothing promised, nothing done")
    void stopsActing() {
      rig.node("t1", TRAINING, 4).job("a", 1, 4, 1, 36_000);
      for (int i = 0; i < 4; i++) {
        rig.worker("a", "t1");
      }
      rig.asking("a", 0).job("b", 2, 2, 1, 600);
      rig.store.claimedByAnother();
      Outcome o = rig.round(1_000_000);
      assertThat(rig.lifecycle.get()).isEqualTo(Lifecycle.State.DEPOSED);
      assertThat(o.actions()).isEmpty();
      assertThat(o.promises()).isEqualTo(Promises.NONE);
      assertThat(rig.after(1_000).actions()).isEmpty();
      assertThatThrownBy(() -> rig.engine.reclaim(rig.view(), 1, null, 0))
          .isInstanceOf(ArylUnavailableException.class)
          .hasMessageContaining("claimed by another scheduler");
    }
  }
}
