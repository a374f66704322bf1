package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WorkerGroupTest {
  private static final long SETTLE = 100;
  private static final long GRACE = 1000;

  /** Runs a script of events on a group (min, max, restarts); returns the actions of every step, abbreviated. */
  private static List<String> run(int min, int max, int restarts, String... script) {
    WorkerGroup g = new WorkerGroup(min, max, GRACE, SETTLE, restarts, 0, 0);
    List<String> out = new ArrayList<>();
    for (String step : script) {
      String[] p = step.split(" ");
      long t = Long.parseLong(p[0]);
      List<WorkerAction> actions = switch (p[1]) {
        case "alloc" -> g.allocated(p[2], "h", t);
        case "recover" -> g.recovered(p[2], "h", t);
        case "launched" -> {
          g.launched(p[2]);
          yield List.of();
        }
        case "exit" -> g.completed(p[2], Integer.parseInt(p[3]), "", t);
        case "preempt" -> g.preempted(Set.of(p[2]), t);
        case "tick" -> g.tick(t);
        default -> throw new IllegalArgumentException(step);
      };
      out.add(String.join(",", actions.stream().map(WorkerGroupTest::brief).toList()));
    }
    out.add(g.outcome() == null ? "running" : (g.outcome().succeeded() ? "succeeded" : "failed"));
    return out;
  }

  private static String brief(WorkerAction a) {
    if (a instanceof WorkerAction.Launch l) {
      return "launch " + l.id() + " g" + l.generation().number() + " r" + l.generation().rank(l.id()) + "/"
          + l.generation().worldSize();
    } else if (a instanceof WorkerAction.Relaunch r) {
      return "relaunch " + r.id() + " g" + r.generation().number() + " r" + r.generation().rank(r.id()) + "/"
          + r.generation().worldSize();
    } else if (a instanceof WorkerAction.Park p) {
      return "park " + p.id();
    } else if (a instanceof WorkerAction.Terminate t) {
      return "term " + t.id();
    } else if (a instanceof WorkerAction.Release r) {
      return "release " + r.id();
    } else if (a instanceof WorkerAction.Ask ask) {
      return "ask " + ask.n();
    } else if (a instanceof WorkerAction.CancelAsks c) {
      return "cancel " + c.n();
    }
    throw new IllegalArgumentException(a.toString());
  }

  static Stream<Arguments> scripts() {
    return Stream.of(
        Arguments.of("asks for max; no process until the gang of min is held", 2, 4, 3,
            new String[] {"0 tick", "10 alloc a", "200 tick", "210 alloc b", "250 tick", "400 tick"},
            List.of("ask 4", "", "", "", "", "launch a g1 r0/2,launch b g1 r1/2", "running")),
        Arguments.of("grows: a new generation relaunches the running and launches the new", 1, 2, 3,
            new String[] {"0 tick", "0 alloc a", "200 tick", "200 launched a", "300 alloc b", "350 tick",
                "500 tick"},
            List.of("ask 2", "", "launch a g1 r0/1", "", "", "", "relaunch a g2 r0/2,launch b g2 r1/2", "running")),
        Arguments.of("preemption: SIGTERM, released at the grace, the rest restart", 1, 2, 3,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a", "200 launched b",
                "300 preempt b", "400 tick", "1300 tick", "1500 tick"},
            List.of("ask 2", "", "", "launch a g1 r0/2,launch b g1 r1/2", "", "", "term b", "",
                "release b,relaunch a g2 r0/1,ask 1", "", "running")),
        Arguments.of("preempted before start: released at once", 2, 3, 3,
            new String[] {"0 tick", "0 alloc a", "0 preempt a"},
            List.of("ask 3", "", "release a", "running")),
        Arguments.of("a crash below min parks the survivor, the replacement restarts the gang", 2, 2, 1,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a", "200 launched b",
                "300 exit b 1", "400 tick", "400 launched a", "500 alloc c", "700 tick"},
            List.of("ask 2", "", "", "launch a g1 r0/2,launch b g1 r1/2", "", "", "", "park a,ask 1", "", "",
                "relaunch a g2 r0/2,launch c g2 r1/2", "running")),
        Arguments.of("a failure past the budget fails the job", 1, 1, 0,
            new String[] {"0 tick", "0 alloc a", "200 tick", "200 launched a", "300 exit a 3", "400 tick"},
            List.of("ask 1", "", "launch a g1 r0/1", "", "", "", "failed")),
        Arguments.of("preempted containers (-102) are lost, not failed", 1, 1, 0,
            new String[] {"0 tick", "0 alloc a", "200 tick", "200 launched a", "300 exit a -102", "400 tick"},
            List.of("ask 1", "", "launch a g1 r0/1", "", "", "ask 1", "running")),
        Arguments.of("the first exit 0 finishes: asks cancelled, succeeded when all exit 0", 1, 3, 0,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a", "200 launched b",
                "300 exit a 0", "300 tick", "400 exit b 0", "400 tick"},
            List.of("ask 3", "", "", "launch a g1 r0/2,launch b g1 r1/2", "", "", "cancel 1", "", "", "",
                "succeeded")),
        Arguments.of("a non-zero exit while finishing fails the job", 1, 2, 5,
            new String[] {"0 tick", "0 alloc a", "0 alloc b", "200 tick", "200 launched a", "200 launched b",
                "300 exit a 0", "400 exit b 1", "400 tick"},
            List.of("ask 2", "", "", "launch a g1 r0/2,launch b g1 r1/2", "", "", "", "", "", "failed")),
        Arguments.of("more than max: the surplus is released", 1, 1, 0,
            new String[] {"0 tick", "0 alloc a", "0 alloc b"},
            List.of("ask 1", "", "release b", "running")),
        Arguments.of("recovered workers restart in a new generation", 2, 2, 0,
            new String[] {"0 recover a", "0 recover b", "200 tick"},
            List.of("", "", "relaunch a g1 r0/2,relaunch b g1 r1/2", "running")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  void decisions(String what, int min, int max, int restarts, String[] script, List<String> expected) {
    assertThat(run(min, max, restarts, script)).as(what).isEqualTo(expected);
  }

  @Test
  void failureDiagnosticNamesTheWorkerAndTheBudget() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, 0);
    g.tick(0);
    g.allocated("c1", "host1", 0);
    g.tick(200);
    g.launched("c1");
    g.completed("c1", 3, "boom", 300);
    assertThat(g.outcome().diagnostics()).contains("rank 0 c1 on host1").contains("exited with status 3: boom")
        .contains("--max-restarts=0");
  }

  @Test
  void generationNumbersContinueFromAnEarlierAttempt() {
    WorkerGroup g = new WorkerGroup(1, 1, GRACE, SETTLE, 0, 0, 7);
    g.recovered("a", "h", 0);
    g.tick(200);
    assertThat(g.current().number()).isEqualTo(8);
  }
}
