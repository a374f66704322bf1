package io.aryl.am;

import static io.aryl.am.MembershipScript.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WorkerGroupTest {
  private static final long SETTLE = 100;
  private static final long GRACE = 1000;

  /** The attempt of every group here; the previous attempt's records name attempt 1. */
  private static final int ATTEMPT = 2;

  /**
   * What attempt 1 recorded: generation {@code number}, the containers in rank order, all on host h
   * (as the script's containers are unless named otherwise).
   */
  private static GenerationRecord recordOf(int number, List<String> ids, boolean running) {
    Map<String, Integer> ranks = new LinkedHashMap<>();
    Map<String, String> hosts = new LinkedHashMap<>();
    ids.forEach(
        id -> {
          ranks.put(id, ranks.size());
          hosts.put(id, "h");
        });
    return new GenerationRecord(
        new Generation(number, ranks, hosts, "h", 23_000 + number), 1, running);
  }

  /**
   * Runs a script of events on a group (min, max, restarts): first the {@code given} steps, whose
   * actions are not shown, then the script; returns the actions of every script step, abbreviated,
   * then the outcome. Steps are {@link MembershipScript}'s, with "[gN]" for a generation, and "T
   * resume gN ID,ID,... running|starting" (attempt 1's record).
   */
  private static List<String> run(int min, int max, int restarts, String[] given, String[] script) {
    return script(new WorkerGroup(min, max, GRACE, SETTLE, restarts, 0, ATTEMPT))
        .run(given, script);
  }

  private static List<String> run(int min, int max, int restarts, String... script) {
    return run(min, max, restarts, new String[0], script);
  }

  /** Plays the script on the group; returns the actions of every step, abbreviated. */
  private static List<String> play(WorkerGroup g, String... script) {
    return script(g).play(script);
  }

  private static MembershipScript script(WorkerGroup g) {
    return new MembershipScript(g, "g", step -> resume(g, step), WorkerGroupTest::brief);
  }

  /** The env launcher's own step, "T resume gN ID,ID,... running|starting"; null for any other. */
  private static List<WorkerAction> resume(WorkerGroup g, String step) {
    String[] p = step.split(" ", -1);
    if (!p[1].equals("resume")) {
      return null;
    }
    g.resume(
        recordOf(
            Integer.parseInt(p[2].substring(1)), List.of(p[3].split(",")), p[4].equals("running")),
        Long.parseLong(p[0]));
    return List.of();
  }

  /** The env launcher's own actions: records and (re)starts with ranks; null for any other. */
  private static String brief(WorkerAction a) {
    if (a instanceof WorkerAction.WriteRecord r) {
      return "record g" + r.record().generation().number() + " running=" + r.record().running();
    } else if (a instanceof WorkerAction.Launch l) {
      return "launch "
          + l.id()
          + " g"
          + l.generation().number()
          + " r"
          + l.generation().rank(l.id())
          + "/"
          + l.generation().worldSize();
    } else if (a instanceof WorkerAction.Relaunch r) {
      return "relaunch "
          + r.id()
          + " g"
          + r.generation().number()
          + " r"
          + r.generation().rank(r.id())
          + "/"
          + r.generation().worldSize();
    }
    return null;
  }

  static Stream<Arguments> starts() {
    return Stream.of(
        Arguments.of(
            "asks for max; no process until the gang of min is held",
            2,
            4,
            3,
            new String[] {
              "0 tick", "10 alloc a", "200 tick", "210 alloc b", "250 tick", "400 tick"
            },
            List.of(
                "ask 4",
                "",
                "",
                "",
                "",
                "record g1 running=false,launch a g1 r0/2,launch b g1 r1/2",
                "running")),
        Arguments.of(
            "a generation is recorded before any of its workers starts, and again once all run",
            2,
            2,
            3,
            new String[] {
              "0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a", "210 launched b"
            },
            List.of(
                "ask 2",
                "",
                "",
                "record g1 running=false,launch a g1 r0/2,launch b g1 r1/2",
                "",
                "record g1 running=true",
                "running")),
        Arguments.of(
            "more than max: the surplus is released",
            1,
            1,
            0,
            new String[] {"0 tick", "0 alloc a", "0 alloc b"},
            List.of("ask 1", "", "release b", "running")),
        Arguments.of(
            "preempted before start: released at once",
            2,
            3,
            3,
            new String[] {"0 tick", "0 alloc a", "0 preempt a"},
            List.of("ask 3", "", "release a", "running")));
  }

  /**
   * Generation changes: every running worker is stopped, and has the grace to exit, before the next
   * one starts.
   */
  static Stream<Arguments> changes() {
    return Stream.of(
        Arguments.of(
            "a move: the new workers wait aside while the old run; once the old are asked back, one"
                + " generation change takes the job from the old to the new, charging nothing",
            2,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 move c",
              "310 move d",
              "600 tick",
              "700 preempt a,b",
              "710 exited a 143 after-term",
              "720 exited b 143 after-term",
              "900 tick",
              "show",
              "restarts"
            },
            List.of(
                "",
                "",
                "",
                "record g1 running=false,term a,term b",
                "release a",
                "release b",
                "record g2 running=false,launch c g2 r0/2,launch d g2 r1/2",
                "g2 c,d",
                "restarts 0",
                "running")),
        Arguments.of(
            "a move of part of the job: the survivor and the new worker form the next generation",
            2,
            3,
            0,
            running("a", "b"),
            new String[] {
              "300 move c",
              "600 tick",
              "700 preempt b",
              "710 exited b 143 after-term",
              "720 exited a 143 after-term",
              "900 tick",
              "show"
            },
            List.of(
                "",
                "",
                "record g1 running=false,term b,term a",
                "release b",
                "",
                "record g2 running=false,relaunch a g2 r0/2,launch c g2 r1/2",
                "g2 a,c",
                "running")),
        Arguments.of(
            "no more workers aside for a move than the job's maximum",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {"300 move c", "310 move d", "320 move e"},
            List.of("", "", "release e", "running")),
        Arguments.of(
            "a move given up: the new worker waits aside for two minutes, then joins as a grow",
            1,
            3,
            0,
            running("a", "b"),
            new String[] {
              "300 move c", "60300 tick", "120300 tick", "120350 tick", "120400 tick", "show"
            },
            List.of("", "", "", "", "record g1 running=false,term a,term b", "g1 a,b", "running")),
        Arguments.of(
            "a grow stops every worker before the larger generation starts",
            1,
            3,
            0,
            running("a", "b"),
            new String[] {
              "300 alloc c",
              "350 tick",
              "400 tick",
              "450 exited a 143 after-term",
              "460 tick",
              "470 exited b 0 after-term",
              "480 tick",
              "restarts"
            },
            List.of(
                "",
                "",
                "record g1 running=false,term a,term b",
                "",
                "",
                "",
                "record g2 running=false,relaunch a g2 r0/3,relaunch b g2 r1/3,launch c g2 r2/3",
                "restarts 0",
                "running")),
        Arguments.of(
            "a shrink stops every worker, then starts the survivors as a smaller generation, charging nothing",
            1,
            4,
            0,
            running("a", "b", "c", "d"),
            new String[] {
              "300 preempt c,d",
              "400 exited c 0 after-term",
              "410 exited d 1",
              "420 exited a 0 after-term",
              "430 tick",
              "440 exited b 1",
              "600 tick",
              "show",
              "restarts"
            },
            List.of(
                "record g1 running=false,term c,term d,term a,term b",
                "release c",
                "release d",
                "",
                "ask 2",
                "",
                "record g2 running=false,relaunch a g2 r0/2,relaunch b g2 r1/2",
                "g2 a,b",
                "restarts 0",
                "running")),
        Arguments.of(
            "a survivor that exits 1 while its peers are being stopped is not charged",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 preempt b",
              "310 exited a 1",
              "320 exited b 143 after-term",
              "500 tick",
              "restarts"
            },
            List.of(
                "record g1 running=false,term b,term a",
                "",
                "release b",
                "record g2 running=false,relaunch a g2 r0/1,ask 1",
                "restarts 0",
                "running")),
        Arguments.of(
            "a survivor whose container ends while its peers are being stopped is not charged",
            1,
            3,
            0,
            running("a", "b", "c"),
            new String[] {
              "300 preempt c",
              "310 ended b 1",
              "320 exited c 143 after-term",
              "330 exited a 0 after-term",
              "500 tick",
              "restarts"
            },
            List.of(
                "record g1 running=false,term c,term a,term b",
                "",
                "release c",
                "",
                "record g2 running=false,relaunch a g2 r0/1,ask 2",
                "restarts 0",
                "running")),
        Arguments.of(
            "a worker that crashes on its own is charged once and replaced, in its container, by the next"
                + " generation's",
            2,
            2,
            1,
            running("a", "b"),
            new String[] {"300 exited b 3", "310 exited a 1", "400 tick", "restarts"},
            List.of(
                "record g1 running=false,term a",
                "",
                "record g2 running=false,relaunch a g2 r0/2,relaunch b g2 r1/2",
                "restarts 1",
                "running")),
        Arguments.of(
            "a crash whose container ends is charged once; below min the survivor is parked until a"
                + " replacement comes",
            2,
            2,
            1,
            running("a", "b"),
            new String[] {
              "300 ended b 3",
              "350 exited a 1 after-term",
              "400 tick",
              "500 alloc c",
              "550 tick",
              "700 tick",
              "restarts"
            },
            List.of(
                "record g1 running=false,term a",
                "",
                "ask 1",
                "",
                "",
                "record g2 running=false,relaunch a g2 r0/2,launch c g2 r1/2",
                "restarts 1",
                "running")),
        Arguments.of(
            "a failure past the budget fails the job",
            1,
            1,
            0,
            running("a"),
            new String[] {"300 exited a 3", "400 tick"},
            List.of("", "", "failed")),
        Arguments.of(
            "containers YARN takes (-102 preempted) are lost, not failed: the rest stop, a replacement is"
                + " asked",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {"300 ended b -102", "310 exited a 1", "400 tick"},
            List.of(
                "record g1 running=false,term a",
                "",
                "record g2 running=false,relaunch a g2 r0/1,ask 1",
                "running")),
        Arguments.of(
            "a worker that does not exit in the grace is restarted anyway: the next generation starts at the"
                + " end of the grace",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {"300 preempt b", "400 exited b 143 after-term", "1299 tick", "1300 tick"},
            List.of(
                "record g1 running=false,term b,term a",
                "release b",
                "ask 1",
                "record g2 running=false,relaunch a g2 r0/1",
                "running")),
        Arguments.of(
            "a preempted worker that does not exit is released at the end of the grace",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {"300 preempt b", "400 exited a 0 after-term", "1299 tick", "1300 tick"},
            List.of(
                "record g1 running=false,term b,term a",
                "",
                "",
                "release b,record g2 running=false,relaunch a g2 r0/1,ask 1",
                "running")),
        Arguments.of(
            "a worker told to stop that exits 0 has not finished the job",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 preempt b", "310 exited a 0 after-term", "320 exited b 0 after-term", "500 tick"
            },
            List.of(
                "record g1 running=false,term b,term a",
                "",
                "release b",
                "record g2 running=false,relaunch a g2 r0/1,ask 1",
                "running")),
        Arguments.of(
            "a container that ends 0 during a change has not finished the job either: it is lost",
            1,
            2,
            0,
            running("a", "b"),
            new String[] {
              "300 preempt b", "310 ended a 0", "320 exited b 143 after-term", "500 tick"
            },
            List.of("record g1 running=false,term b,term a", "", "release b", "ask 2", "running")),
        Arguments.of(
            "a preemption during a change releases an idle worker at once and a stopping one once it exited",
            1,
            3,
            0,
            running("a", "b", "c"),
            new String[] {
              "300 preempt c",
              "310 exited a 0 after-term",
              "320 preempt a,b",
              "330 exited b 143 after-term",
              "340 exited c 143 after-term",
              "500 tick"
            },
            List.of(
                "record g1 running=false,term c,term a,term b",
                "",
                "release a",
                "release b",
                "release c",
                "ask 3",
                "running")),
        Arguments.of(
            "a late report of an earlier generation is ignored",
            1,
            3,
            0,
            running("a", "b"),
            new String[] {
              "300 alloc c",
              "400 tick",
              "410 exited a 143 after-term",
              "420 exited b 143 after-term",
              "500 tick",
              "510 exited a 143 after-term g1",
              "520 tick"
            },
            List.of(
                "",
                "record g1 running=false,term a,term b",
                "",
                "",
                "record g2 running=false,relaunch a g2 r0/3,relaunch b g2 r1/3,launch c g2 r2/3",
                "",
                "",
                "running")),
        Arguments.of(
            "a worker told to stop while its start is in flight gets SIGTERM once its NodeManager accepted it",
            1,
            2,
            0,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a"},
            new String[] {
              "250 preempt a",
              "260 launched b",
              "270 exited a 143 after-term",
              "280 exited b 143 after-term",
              "500 tick"
            },
            List.of(
                "term a",
                "term b",
                "release a",
                "",
                "record g2 running=false,relaunch b g2 r0/1,ask 1",
                "running")),
        Arguments.of(
            "recovered workers without a record are told to stop, then restart in a new generation",
            2,
            2,
            0,
            new String[0],
            new String[] {
              "0 recover a",
              "0 recover b",
              "200 tick",
              "300 exited a 143 after-term",
              "400 tick",
              "1199 tick",
              "1200 tick"
            },
            List.of(
                "",
                "",
                "term a,term b",
                "",
                "",
                "",
                "record g1 running=false,relaunch a g1 r0/2,relaunch b g1 r1/2",
                "running")));
  }

  /** The end of the job: the first worker to exit 0 on its own starts it. */
  static Stream<Arguments> finishes() {
    return Stream.of(
        Arguments.of(
            "the first exit 0 finishes: asks cancelled, succeeded when all exit 0",
            1,
            3,
            0,
            running("a", "b"),
            new String[] {"300 ended a 0", "300 tick", "400 ended b 0", "400 tick"},
            List.of("cancel 1", "", "", "", "succeeded")),
        Arguments.of(
            "a non-zero exit while finishing fails the job; its idle container is released",
            1,
            2,
            5,
            running("a", "b"),
            new String[] {"300 ended a 0", "400 exited b 1", "400 tick"},
            List.of("", "", "release b", "failed")),
        Arguments.of(
            "a container held when the job starts finishing is released: no generation will use it",
            1,
            3,
            0,
            running("a", "b"),
            new String[] {"250 alloc c", "300 ended a 0", "310 tick", "400 ended b 0", "410 tick"},
            List.of("", "", "release c", "", "", "succeeded")));
  }

  /** The next attempt: adopting the previous attempt's running generation, or not. */
  static Stream<Arguments> adoptionScripts() {
    return Stream.of(
        Arguments.of(
            "exactly the recorded members came back: adopted as it runs, nothing restarted or recorded",
            2,
            2,
            new String[] {
              "0 resume g3 b,a running", "0 recover a", "0 recover b", "10 tick", "500 tick", "show"
            },
            List.of("", "", "", "", "", "g3 b,a", "running")),
        Arguments.of(
            "members still missing: it waits (no generation, signal or ask), then adopts; then grows",
            2,
            3,
            new String[] {
              "0 resume g3 a,b running",
              "0 recover a",
              "10 tick",
              "60 tick",
              "70 recover b",
              "80 tick",
              "show",
              "90 alloc c",
              "200 tick",
              "210 exited a 143 after-term",
              "220 exited b 143 after-term",
              "300 tick",
              "show"
            },
            List.of(
                "",
                "",
                "",
                "",
                "",
                "ask 1",
                "g3 a,b",
                "",
                "record g3 running=false,term a,term b",
                "",
                "",
                "record g4 running=false,relaunch a g4 r0/3,relaunch b g4 r1/3,launch c g4 r2/3",
                "g4 a,b,c",
                "running")),
        Arguments.of(
            "a member missing at the end of the wait (the settle time): the rest are stopped, then a new"
                + " generation, numbers continue, survivors keep the recorded order",
            1,
            3,
            new String[] {
              "0 resume g3 c,b,a running",
              "0 recover a",
              "0 recover b",
              "99 tick",
              "100 tick",
              "150 exited a 143 after-term",
              "150 exited b 143 after-term",
              "200 tick",
              "show"
            },
            List.of(
                "",
                "",
                "",
                "",
                "term a,term b,ask 1",
                "",
                "",
                "record g4 running=false,relaunch a g4 r1/2,relaunch b g4 r0/2",
                "g4 b,a",
                "running")),
        Arguments.of(
            "a container that is not a member came back: not adopted, every worker is stopped and restarts",
            1,
            2,
            new String[] {
              "0 resume g3 a running",
              "0 recover a",
              "0 recover x",
              "10 tick",
              "100 tick",
              "1100 tick"
            },
            List.of(
                "",
                "",
                "",
                "",
                "term a,term x",
                "record g4 running=false,relaunch a g4 r0/2,relaunch x g4 r1/2",
                "running")),
        Arguments.of(
            "a member came back on another host than recorded: not adopted",
            1,
            1,
            new String[] {"0 resume g3 a running", "0 recover a h2", "100 tick", "1100 tick"},
            List.of("", "", "term a", "record g4 running=false,relaunch a g4 r0/1", "running")),
        Arguments.of(
            "a member ended during the wait: not adopted, without waiting out the rest",
            1,
            2,
            new String[] {
              "0 resume g3 a,b running",
              "0 recover a",
              "0 recover b",
              "5 ended b 1",
              "10 tick",
              "105 tick",
              "1105 tick"
            },
            List.of(
                "",
                "",
                "",
                "",
                "ask 1",
                "term a",
                "record g4 running=false,relaunch a g4 r0/1",
                "running")),
        Arguments.of(
            "a generation recorded while starting (or signalled, or parked) is not adopted",
            2,
            2,
            new String[] {
              "0 resume g3 a,b starting", "0 recover a", "0 recover b", "100 tick", "1100 tick"
            },
            List.of(
                "",
                "",
                "",
                "term a,term b",
                "record g4 running=false,relaunch a g4 r0/2,relaunch b g4 r1/2",
                "running")),
        Arguments.of(
            "an adopted generation is recorded not running before a member is signalled",
            1,
            2,
            new String[] {
              "0 resume g3 a,b running", "0 recover a", "0 recover b", "10 tick", "20 preempt b"
            },
            List.of("", "", "", "", "record g3 running=false,term b,term a", "running")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("starts")
  @DisplayName("starting: asks, the gang of min, the generation record")
  void starts(String what, int min, int max, int restarts, String[] script, List<String> expected) {
    assertThat(run(min, max, restarts, script)).as(what).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changes")
  @DisplayName(
      "generation changes: stop every worker, wait for their exits or the grace, then start the next")
  void changes(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).as(what).isEqualTo(expected);
  }

  static Stream<Arguments> gone() {
    return Stream.of(
        Arguments.of(
            "completed together: the change the first starts signals only the survivor, and the"
                + " next generation starts once it exited, not at the grace",
            1,
            3,
            0,
            running("a", "b", "c"),
            new String[] {
              "300 ended-together a:-100,b:-100",
              "310 exited c 143 after-term",
              "420 tick",
              "show",
              "restarts"
            },
            List.of(
                "record g1 running=false,term c",
                "",
                "record g2 running=false,relaunch c g2 r0/1,ask 2",
                "g2 c",
                "restarts 0",
                "running")),
        Arguments.of(
            "a SIGTERM its NodeManager refused (the container unknown there): gone, released, never"
                + " waited for; its later completion changes nothing",
            1,
            3,
            0,
            running("a", "b", "c"),
            new String[] {
              "300 ended a -100",
              "310 gone b",
              "320 exited c 143 after-term",
              "330 tick",
              "420 tick",
              "430 ended b -100",
              "show",
              "restarts"
            },
            List.of(
                "record g1 running=false,term b,term c",
                "release b",
                "",
                "ask 2",
                "record g2 running=false,relaunch c g2 r0/1",
                "",
                "g2 c",
                "restarts 0",
                "running")),
        Arguments.of(
            "a node reported lost: its containers are released, never signalled; the survivor is",
            1,
            3,
            0,
            running("a", "b", "c"),
            new String[] {"300 gone a,b", "310 ended a -100", "320 gone x", "show", "restarts"},
            List.of(
                "record g1 running=false,term c,release a,release b",
                "",
                "",
                "g1 a,b,c",
                "restarts 0",
                "running")),
        Arguments.of(
            "gone while the starts were in flight: the gone one gets no SIGTERM once started, the"
                + " survivor gets its own then",
            2,
            2,
            0,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick"},
            new String[] {"210 gone a", "220 launched a", "230 launched b", "restarts"},
            List.of("release a", "", "term b", "restarts 0", "running")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gone")
  @DisplayName(
      "a container YARN reported completed, or whose node or NodeManager lost it, is gone: never"
          + " signalled, never waited for, never charged")
  void gone(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).as(what).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("finishes")
  @DisplayName("finishing: the first exit 0, then every worker's")
  void finishes(
      String what,
      int min,
      int max,
      int restarts,
      String[] given,
      String[] script,
      List<String> expected) {
    assertThat(run(min, max, restarts, given, script)).as(what).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("adoptionScripts")
  @DisplayName("a next AM attempt adopts the running generation, or stops it and starts a new one")
  void adoption(String what, int min, int max, String[] script, List<String> expected) {
    assertThat(run(min, max, 3, script)).as(what).isEqualTo(expected);
  }

  @Test
  @DisplayName(
      "the failure that fails the job is named with its worker, host, exit status and the budget")
  void failureDiagnosticNamesTheWorkerAndTheBudget() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, ATTEMPT);
    g.tick(0);
    g.allocated("c1", "host1", 0);
    g.tick(200);
    g.launched("c1");
    g.completed("c1", 3, "boom", 300);
    assertThat(g.outcome().diagnostics())
        .contains("rank 0 c1 on host1")
        .contains("exited with status 3: boom")
        .contains("--max-restarts=0");
  }

  private static List<String> events(WorkerGroup g, String kind) {
    return g.events().stream()
        .filter(e -> e.kind().equals(kind))
        .map(Membership.ScalingEvent::detail)
        .toList();
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            new String[] {"0 resume g3 c,b,a running", "0 recover a", "100 tick"},
            "2 of 3 members did not come back within 100 ms: c, b"),
        Arguments.of(
            new String[] {"0 resume g3 a running", "0 recover a", "0 recover x", "10 tick"},
            "x on h came back too but is not a member"),
        Arguments.of(
            new String[] {"0 resume g3 a running", "0 recover a h2", "10 tick"},
            "a came back on h2, recorded on h"),
        Arguments.of(
            new String[] {
              "0 resume g3 a,b running", "0 recover a", "0 recover b", "5 ended b 1", "10 tick"
            },
            "member b ended"),
        Arguments.of(
            new String[] {
              "0 resume g3 a,b running", "0 recover a", "0 recover b", "5 preempt b", "10 tick"
            },
            "b was DRAINING before the adoption"),
        Arguments.of(
            new String[] {"0 resume g3 a,b starting"},
            "its workers were being started, signalled or parked when that attempt ended"));
  }

  @ParameterizedTest(name = "not adopted: {1}")
  @MethodSource("refusals")
  @DisplayName("a refused adoption is a scaling event that says why")
  void refusalIsAnEvent(String[] script, String why) {
    WorkerGroup g = new WorkerGroup(1, 3, GRACE, SETTLE, 3, 0, ATTEMPT);
    play(g, script);
    assertThat(events(g, "not-adopted"))
        .containsExactly("generation 3 from attempt 1 not adopted: " + why);
    assertThat(events(g, "adopted")).isEmpty();
  }

  @Test
  @DisplayName(
      "an adoption is a scaling event naming the generation, the attempt that started it and its master")
  void adoptionIsAnEvent() {
    WorkerGroup g = new WorkerGroup(2, 2, GRACE, SETTLE, 0, 0, ATTEMPT);
    g.resume(recordOf(3, List.of("a", "b"), true), 0);
    g.recovered("a", "h", 0);
    g.recovered("b", "h", 0);
    g.tick(10);
    assertThat(events(g, "adopted"))
        .containsExactly("adopted generation 3 from attempt 1: 2 workers, master h:23003");
    assertThat(g.workers()).allSatisfy(w -> assertThat(w.generation()).isEqualTo(3));
  }

  @Test
  @DisplayName(
      "records name the attempt that started the generation: this one's, or the adopted one's")
  void recordsNameTheStartingAttempt() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, ATTEMPT);
    g.allocated("a", "h", 0);
    WorkerAction first = g.tick(200).get(0);
    assertThat(first)
        .isInstanceOfSatisfying(
            WorkerAction.WriteRecord.class,
            r -> assertThat(r.record().attempt()).isEqualTo(ATTEMPT));

    WorkerGroup next = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, 3);
    next.resume(recordOf(5, List.of("a"), true), 0);
    next.recovered("a", "h", 0);
    next.tick(10);
    assertThat(next.preempted(Set.of("a"), 20).get(0))
        .isInstanceOfSatisfying(
            WorkerAction.WriteRecord.class,
            r -> assertThat(r.record()).isEqualTo(recordOf(5, List.of("a"), false)));
  }

  /**
   * Recovered worker a is told to stop at 200, reports its exit, and restarts in a new generation
   * at 300.
   */
  private static void stopAndRestartRecovered(WorkerGroup g) {
    g.recovered("a", "h", 0);
    g.tick(200);
    g.exited("a", 5, 143, true, 250);
    g.tick(300);
  }

  @Test
  @DisplayName("generation numbers continue from the previous attempt's record, adopted or not")
  void generationNumbersContinueFromAnEarlierAttempt() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, ATTEMPT);
    g.resume(recordOf(7, List.of("gone"), false), 0);
    stopAndRestartRecovered(g);
    assertThat(g.current().number()).isEqualTo(8);
  }

  @Test
  @DisplayName(
      "an unreadable record is an event; the workers restart in a generation numbered from 1")
  void unreadableRecord() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, ATTEMPT);
    g.recordUnreadable("generation record /s/generation.json is not valid: not JSON", 0);
    stopAndRestartRecovered(g);
    assertThat(g.current().number()).isEqualTo(1);
    assertThat(events(g, "not-adopted"))
        .containsExactly(
            "generation record /s/generation.json is not valid: not JSON; the workers restart in a new generation");
  }

  @Test
  @DisplayName("a group resumes once, before its first generation")
  void resumesOnce() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, ATTEMPT);
    g.resume(recordOf(2, List.of("a"), false), 0);
    assertThatThrownBy(() -> g.resume(recordOf(2, List.of("a"), false), 0))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, 0))
        .hasMessage("attempt must be >= 1, was 0");
  }
}
