package io.aryl.am;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Scripts of events for the table-driven tests of a {@link Membership} ({@link WorkerGroupTest},
 * {@link AgentGroupTest}): each step is one event, shown as the actions it returned, abbreviated.
 * The steps every membership knows: "T alloc|recover|move ID [HOST]" (host h unless named; move:
 * granted for a move), "T launched ID", "T launch-failed ID", "T ended ID STATUS" (the container
 * completed), "T ended-together ID:STATUS,ID:STATUS,..." (completed in one heartbeat), "T gone
 * ID,ID,..." (gone without the RM's word: a lost node, a NodeManager that no longer knows them), "T
 * exited ID STATUS [after-term] [xN]" (its supervisor reports the process's exit, by default for
 * the container's generation; x is the letter the test names generations by), "T preempt
 * ID,ID,...", "T tick", "restarts" (the restarts used) and "show" (the current generation and its
 * containers in rank order, or none). A test adds events and actions of its own launcher.
 */
final class MembershipScript {
  private final Membership group;
  private final String generationLetter;
  private final Function<String, List<WorkerAction>> ownEvents;
  private final Function<WorkerAction, String> ownActions;

  /**
   * @param ownEvents plays a step of an event of the test's own launcher and returns its actions;
   *     null for any other
   * @param ownActions abbreviates an action of the test's own launcher; null for any other
   */
  MembershipScript(
      Membership group,
      String generationLetter,
      Function<String, List<WorkerAction>> ownEvents,
      Function<WorkerAction, String> ownActions) {
    this.group = group;
    this.generationLetter = generationLetter;
    this.ownEvents = ownEvents;
    this.ownActions = ownActions;
  }

  /**
   * Steps after which these containers (allocated at 0, all on host h) run, started at 200; the
   * last step at 200.
   */
  static String[] running(String... ids) {
    List<String> steps = new ArrayList<>(List.of("0 tick"));
    for (String id : ids) {
      steps.add("0 alloc " + id);
    }
    steps.add("200 tick");
    for (String id : ids) {
      steps.add("200 launched " + id);
    }
    return steps.toArray(String[]::new);
  }

  /**
   * Plays the {@code given} steps, whose actions are not shown, then the script; returns the
   * actions of every script step, then the outcome (running, succeeded or failed).
   */
  List<String> run(String[] given, String[] script) {
    play(given);
    List<String> out = play(script);
    Membership.Outcome outcome = group.outcome();
    out.add(outcome == null ? "running" : (outcome.succeeded() ? "succeeded" : "failed"));
    return out;
  }

  /** Plays the script; returns what every step shows. */
  List<String> play(String... script) {
    List<String> out = new ArrayList<>();
    for (String step : script) {
      if (step.equals("show")) {
        Generation current = group.current();
        out.add(
            current == null
                ? "none"
                : "g" + current.number() + " " + String.join(",", current.ranks().keySet()));
        continue;
      }
      if (step.equals("restarts")) {
        out.add("restarts " + group.restartsUsed());
        continue;
      }
      String[] p = step.split(" ");
      long t = Long.parseLong(p[0]);
      List<WorkerAction> own = ownEvents.apply(step);
      List<WorkerAction> actions =
          own != null
              ? own
              : switch (p[1]) {
                case "alloc" -> group.allocated(p[2], p.length > 3 ? p[3] : "h", t);
                case "recover" -> group.recovered(p[2], p.length > 3 ? p[3] : "h", t);
                case "move" -> group.allocatedForMove(p[2], p.length > 3 ? p[3] : "h", t);
                case "launched" -> group.launched(p[2]);
                case "launch-failed" -> group.launchFailed(p[2], "refused", t);
                case "ended" -> group.completed(p[2], Integer.parseInt(p[3]), "", t);
                case "ended-together" ->
                    group.completed(
                        Stream.of(p[2].split(","))
                            .map(c -> c.split(":"))
                            .map(c -> new Membership.Completion(c[0], Integer.parseInt(c[1]), ""))
                            .toList(),
                        t);
                case "gone" -> group.gone(Set.of(p[2].split(",")), "its node is LOST", t);
                case "exited" -> {
                  List<String> flags = List.of(p).subList(4, p.length);
                  int generation =
                      flags.stream()
                          .filter(f -> f.startsWith(generationLetter))
                          .map(f -> Integer.parseInt(f.substring(1)))
                          .findFirst()
                          .orElseGet(() -> generationOf(p[2]));
                  yield group.exited(
                      p[2], generation, Integer.parseInt(p[3]), flags.contains("after-term"), t);
                }
                case "preempt" -> group.preempted(Set.of(p[2].split(",")), t);
                case "tick" -> group.tick(t);
                default -> throw new IllegalArgumentException(step);
              };
      out.add(String.join(",", actions.stream().map(this::brief).toList()));
    }
    return out;
  }

  private int generationOf(String id) {
    return group.workers().stream()
        .filter(w -> w.id().equals(id))
        .findFirst()
        .orElseThrow()
        .generation();
  }

  private String brief(WorkerAction a) {
    String own = ownActions.apply(a);
    if (own != null) {
      return own;
    } else if (a instanceof WorkerAction.Terminate t) {
      return "term " + t.id();
    } else if (a instanceof WorkerAction.Release r) {
      return "release " + r.id();
    } else if (a instanceof WorkerAction.Ask ask) {
      return "ask " + ask.n();
    } else if (a instanceof WorkerAction.CancelAsks c) {
      return "cancel " + c.n();
    }
    throw new IllegalArgumentException("not an action of this launcher: " + a);
  }
}
