package io.aryl.am;

import static io.aryl.am.MembershipScript.running;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decisions of the torchrun launcher's membership ({@link AgentGroup}), as scripts of events
 * and actions.
 */
@DisplayName("AgentGroup: torchrun's agents are started once, and stopped only when they must")
class AgentGroupTest {
  private static final long SETTLE = 100;
  private static final long GRACE = 1000;

  /**
   * Runs a script of events on a group (min, max, restarts): first the {@code given} steps, whose
   * actions are not shown, then the script; returns the actions of every script step, abbreviated,
   * then the outcome. Steps are {@link MembershipScript}'s, with "[rN]" for a rendezvous, and "T
   * store" (the rendezvous store was restarted).
   */
  private static List<String> run(int min, int max, int restarts, String[] given, String[] script) {
    return script(new AgentGroup(min, max, GRACE, SETTLE, restarts)).run(given, script);
  }

  private static List<String> play(AgentGroup g, String... script) {
    return script(g).play(script);
  }

  private static MembershipScript script(AgentGroup g) {
    return new MembershipScript(
        g,
        "r",
        step ->
            step.endsWith(" store")
                ? g.storeRestarted(Long.parseLong(step.split(" ", -1)[0]))
                : null,
        AgentGroupTest::brief);
  }

  /** The torchrun launcher's own action, an agent's start; null for any other. */
  private static String brief(WorkerAction a) {
    if (a instanceof WorkerAction.StartAgent s) {
      return (s.reinitialize() ? "reinit " : "start ") + s.id() + " r" + s.incarnation();
    }
    return null;
  }

  static Stream<Arguments> starts() {
    return Stream.of(
        Arguments.of(
            "asks for max and starts no agent until min containers are held, then all of them together",
            2,
            4,
            3,
            new String[0],
            new String[] {
              "0 tick",
              "10 alloc a",
              "200 tick",
              "210 alloc b",
              "250 tick",
              "400 tick",
              "410 launched a",
              "restarts"
            },
            List.of("ask 4", "", "", "", "", "start a r1,start b r1", "", "restarts 0", "running")),
        Arguments.of(
            "more than max: the surplus is released",
            1,
            1,
            0,
            new String[0],
            new String[] {"0 tick", "0 alloc a", "0 alloc b"},
            List.of("ask 1", "", "release b", "running")),
        Arguments.of(
            "a container granted later starts an agent that joins the running rendezvous once membership has"
                + " been still for the settle time; no running agent is told anything",
            2,
            4,
            0,
            running("a", "b"),
            new String[] {
              "300 alloc c", "350 tick", "360 alloc d", "450 tick", "460 tick", "470 launched c"
            },
            List.of("", "", "", "", "start c r1,start d r1", "", "running")),
        Arguments.of(
            "an agent told to stop while its start is in flight gets SIGTERM once its NodeManager accepted"
                + " it",
            1,
            2,
            0,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a"},
            new String[] {
              "250 preempt b", "260 launched b", "270 exited b 1 after-term", "1000 tick"
            },
            List.of("", "term b", "release b", "ask 1", "running")));
  }

  static Stream<Arguments> shrinks() {
    return Stream.of(
        Arguments.of(
            "a node reported lost: its agents are released and never signalled, the survivor runs"
                + " on, nothing is charged; the RM's later completions change nothing",
            1,
            3,
            0,
            running("a", "b", "c"),
            new String[] {"300 gone a,b", "310 ended a -100", "400 tick", "restarts"},
            List.of("release a,release b", "", "ask 2", "restarts 0", "running")),
        Arguments.of(
            "a move: the new containers wait aside, starting no agent, until the old are asked back; then the"
                + " new agents join as the old leave; nothing is charged",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 move c",
              "310 move d",
              "600 tick",
              "700 preempt a,b",
              "710 tick",
              "720 exited a 1 after-term",
              "730 exited b 1 after-term",
              "900 tick",
              "restarts"
            },
            List.of(
                "",
                "",
                "",
                "term a,term b",
                "",
                "release a",
                "release b",
                "start c r1,start d r1",
                "restarts 0",
                "running")),
        Arguments.of(
            "a preempted container's agent alone is told to stop, and its container released once the agent"
                + " exited; the survivors are left to torchrun; nothing is charged",
            2,
            3,
            0,
            running("a", "b", "c"),
            new String[] {"300 preempt c", "400 exited c 1 after-term", "500 tick", "restarts"},
            List.of("term c", "release c", "ask 1", "restarts 0", "running")),
        Arguments.of(
            "a preempted agent that outlives the grace is released at its end",
            2,
            3,
            0,
            running("a", "b", "c"),
            new String[] {"300 preempt c", "1299 tick", "1300 tick"},
            List.of("term c", "", "release c,ask 1", "running")),
        Arguments.of(
            "a preempted container that runs no agent is released at once",
            2,
            3,
            0,
            running("a", "b"),
            new String[] {"300 alloc c", "310 preempt c"},
            List.of("", "release c", "running")),
        Arguments.of(
            "below min the survivors keep running (their agents wait in the rendezvous), and a replacement"
                + " joins them",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 preempt b",
              "400 exited b 1 after-term",
              "500 tick",
              "600 alloc c",
              "800 tick",
              "restarts"
            },
            List.of("term b", "release b", "ask 1", "", "start c r1", "restarts 0", "running")),
        Arguments.of(
            "a container YARN lost is not charged and stops no one: torchrun re-forms the group without it",
            2,
            3,
            0,
            running("a", "b", "c"),
            new String[] {"300 ended c -100", "400 tick", "restarts"},
            List.of("", "ask 1", "restarts 0", "running")));
  }

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(
            "an agent that exits non-zero on its own (torchrun gave up) is charged once; the others are told"
                + " to stop, and every container then starts an agent of a new rendezvous",
            2,
            2,
            3,
            running("a", "b"),
            new String[] {"300 exited a 1", "310 exited b 1", "320 tick", "500 tick", "restarts"},
            List.of("term b", "", "", "reinit a r2,reinit b r2", "restarts 1", "running")),
        Arguments.of(
            "exits while every agent is being restarted are never charged, after SIGTERM or not",
            2,
            3,
            3,
            running("a", "b", "c"),
            new String[] {
              "300 exited a 1", "310 exited b 1", "320 ended c 1", "500 tick", "restarts"
            },
            List.of(
                "term b,term c", "", "", "reinit a r2,reinit b r2,ask 1", "restarts 1", "running")),
        Arguments.of(
            "a container that ends with a failure status while its agent runs is charged like an exit",
            2,
            2,
            3,
            running("a", "b"),
            new String[] {"300 ended a 1", "310 exited b 1 after-term", "500 tick", "restarts"},
            List.of("term b", "", "ask 1", "restarts 1", "running")),
        Arguments.of(
            "an agent that got a SIGTERM not from the AM is not charged; its container starts a new agent of"
                + " the same rendezvous",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {"300 exited a 143 after-term", "350 tick", "450 tick", "restarts"},
            List.of("", "", "reinit a r1", "restarts 0", "running")),
        Arguments.of(
            "an agent that exits on its own while the job holds fewer than min containers is not charged (its"
                + " rendezvous could not complete); a new rendezvous starts once min are held",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 preempt b",
              "400 exited b 1 after-term",
              "500 exited a 1",
              "700 tick",
              "800 alloc c",
              "1000 tick",
              "restarts"
            },
            List.of(
                "term b",
                "release b",
                "",
                "ask 1",
                "",
                "reinit a r2,start c r2",
                "restarts 0",
                "running")),
        Arguments.of(
            "one failure past --max-restarts fails the job",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {"300 exited a 1", "400 tick"},
            List.of("", "", "failed")),
        Arguments.of(
            "an agent the NodeManager refuses to start is charged and its container given up",
            2,
            3,
            1,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick"},
            new String[] {"210 launch-failed a", "220 launched b", "restarts"},
            List.of("release a", "", "restarts 1", "running")),
        Arguments.of(
            "a late report of an earlier rendezvous is ignored",
            2,
            2,
            3,
            running("a", "b"),
            new String[] {
              "300 exited a 1",
              "310 exited b 1 after-term",
              "500 tick",
              "510 exited a 1 r1",
              "restarts"
            },
            List.of("term b", "", "reinit a r2,reinit b r2", "", "restarts 1", "running")));
  }

  static Stream<Arguments> restarts() {
    return Stream.of(
        Arguments.of(
            "a restarted rendezvous store: every agent is told to stop and restarts in a new rendezvous,"
                + " uncharged",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 store",
              "400 exited a 1 after-term",
              "410 exited b 1 after-term",
              "500 tick",
              "restarts"
            },
            List.of("term a,term b", "", "", "reinit a r2,reinit b r2", "restarts 0", "running")),
        Arguments.of(
            "containers of an earlier AM attempt (whose store died with it) are told to stop, then start"
                + " agents of this attempt's rendezvous at the grace; nothing is charged",
            2,
            2,
            0,
            new String[0],
            new String[] {
              "0 recover a", "0 recover b", "10 tick", "999 tick", "1000 tick", "restarts"
            },
            List.of(
                "term a", "term b", "", "", "reinit a r1,reinit b r1", "restarts 0", "running")),
        Arguments.of(
            "an earlier attempt's container that ends is not charged; a replacement is asked for",
            2,
            2,
            0,
            new String[0],
            new String[] {"0 recover a", "0 recover b", "300 ended a 1", "400 tick", "restarts"},
            List.of("term a", "term b", "", "ask 1", "restarts 0", "running")),
        Arguments.of(
            "an earlier attempt's container that cannot be re-initialised (it ended unseen) is given up, not"
                + " charged; one that could is this attempt's like any other",
            2,
            2,
            1,
            new String[0],
            new String[] {
              "0 recover a",
              "0 recover b",
              "1000 tick",
              "1010 launch-failed a",
              "1020 launched b",
              "1030 launch-failed b",
              "restarts"
            },
            List.of(
                "term a",
                "term b",
                "reinit a r1,reinit b r1",
                "release a",
                "",
                "release b",
                "restarts 1",
                "running")));
  }

  static Stream<Arguments> finishes() {
    return Stream.of(
        Arguments.of(
            "the first agent that exits 0 starts the finish: asks are withdrawn, and the job succeeds once"
                + " every container ended",
            2,
            3,
            0,
            running("a", "b"),
            new String[] {"300 ended a 0", "310 tick", "400 ended b 0", "410 tick"},
            List.of("cancel 1", "", "", "", "succeeded")),
        Arguments.of(
            "while finishing, an agent that exits non-zero (one not in the last round, whose rendezvous the"
                + " others closed) is recorded, not a failure; idle and new containers are released",
            2,
            4,
            0,
            running("a", "b"),
            new String[] {
              "300 alloc c",
              "450 tick",
              "500 ended a 0",
              "505 alloc d",
              "510 exited c 1",
              "520 tick",
              "530 ended b 0",
              "540 tick"
            },
            List.of(
                "", "start c r1", "cancel 1", "release d", "", "release c", "", "", "succeeded")),
        Arguments.of(
            "an agent that exits 0 after SIGTERM has not finished the job",
            2,
            3,
            0,
            running("a", "b", "c"),
            new String[] {"300 preempt c", "310 exited c 0 after-term", "400 tick"},
            List.of("term c", "release c", "ask 1", "running")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("starts")
  @DisplayName("starting: asks, the gang of min, agents joining later")
  void starts(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shrinks")
  @DisplayName("shrinking: only the preempted agents are stopped")
  void shrinks(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failures")
  @DisplayName("failures: what is charged to --max-restarts, and the restart of every agent")
  void failures(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("restarts")
  @DisplayName("a lost rendezvous store: a new store, a new rendezvous, nothing charged")
  void restarts(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("finishes")
  @DisplayName("finishing: torchrun says when training is done")
  void finishes(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).isEqualTo(expected);
  }

  @Test
  @DisplayName(
      "the failure that fails the job names the agent, its host, its exit status and the budget")
  void failureDiagnosticNamesTheAgentAndTheBudget() {
    AgentGroup g = new AgentGroup(1, 1, GRACE, SETTLE, 0);
    play(g, running("a"));
    g.exited("a", 1, 1, false, 300);
    assertThat(g.outcome().succeeded()).isFalse();
    assertThat(g.outcome().diagnostics())
        .isEqualTo(
            "agent a on h exited with status 1 (torchrun gave up); the job"
                + " is failed: 1 agent failures, more than --max-restarts=0");
  }

  @Test
  @DisplayName(
      "the AM forms no generation under torchrun; workers show their rendezvous as their generation")
  void noGenerationsOfItsOwn() {
    AgentGroup g = new AgentGroup(2, 2, GRACE, SETTLE, 0);
    play(g, running("a", "b"));
    assertThat(g.current()).isNull();
    assertThat(g.generations()).isEmpty();
    assertThat(g.incarnation()).isEqualTo(1);
    Map<String, String> states = new LinkedHashMap<>();
    g.workers().forEach(w -> states.put(w.id(), w.state() + " r" + w.generation()));
    assertThat(states).containsExactly(Map.entry("a", "RUNNING r1"), Map.entry("b", "RUNNING r1"));
  }

  @Test
  @DisplayName("falling below min is a scaling event that says the agents wait in their rendezvous")
  void belowMinIsAnEvent() {
    AgentGroup g = new AgentGroup(2, 2, GRACE, SETTLE, 0);
    play(g, running("a", "b"));
    play(g, "300 preempt b", "400 exited b 1 after-term", "500 tick");
    assertThat(g.events())
        .filteredOn(e -> e.kind().equals("below-min"))
        .singleElement()
        .extracting(Membership.ScalingEvent::detail)
        .isEqualTo(
            "1 of the minimum 2 containers: the agents wait in their rendezvous for 2 nodes");
  }
}
