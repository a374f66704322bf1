package io.aryl.api.loan;

import io.aryl.api.body.BadRequestException;
import io.aryl.api.body.JsonObjectBody;
import java.io.InputStream;
import java.util.List;
import java.util.Set;

/**
 * The body of {@code POST /ws/v1/cluster/aryl/loans}: lend these inference nodes to training now,
 * as an operator asks where no loan controller decides. Each must be an inference node at home with
 * nothing running on it; the scheduler stores the loan, relabels them and answers with {@link
 * LendAnswer}. While a loan controller's target is in force the request is refused ({@code 409}):
 * the controller decides what is lent.
 *
 * @param nodes the nodes' names as the ResourceManager reports them
 */
public record LendRequest(List<String> nodes) {
  public static final int MAX_BYTES = 64 * 1024;
  public static final int MAX_NODES = 1_000;
  public static final int MAX_NODE_CHARS = 256;
  public static final Set<String> FIELDS = Set.of("nodes");
  static final String EXAMPLE = "{\"nodes\": [\"gpu-inf-3:8041\"]}";

  public LendRequest {
    nodes = List.copyOf(nodes);
  }

  /**
   * The request in {@code body}: one JSON object of at most {@link #MAX_BYTES} bytes with only
   * {@code nodes}, a list of 1-1000 distinct names of 1-256 printable characters.
   *
   * @throws BadRequestException naming the field and the value
   */
  public static LendRequest parse(InputStream body) throws BadRequestException {
    JsonObjectBody req = JsonObjectBody.read(body, MAX_BYTES, EXAMPLE).onlyFields(FIELDS);
    return new LendRequest(req.texts("nodes", MAX_NODES, MAX_NODE_CHARS));
  }
}
