package pks.testsupport;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.UserFunction;

/**
 * Stand-ins of two APOC members, registered only with {@code --test-procedures}: a procedure that runs any Cypher
 * text it is given (as {@code apoc.cypher.run} does, so a query can hide {@code LOAD CSV} in a string) and a
 * user-defined function. They let the graph-query tests show that the plan, not the text, decides.
 */
public final class StandInApoc {
  /** Injected by Neo4j: the calling transaction. */
  @Context public Transaction tx;

  /** One row of {@code apoc.cypher.run}: a result row as a map. */
  public static final class MapResult {
    public final Map<String, Object> value;

    public MapResult(Map<String, Object> value) {
      this.value = value;
    }
  }

  @Procedure(name = "apoc.cypher.run", mode = Mode.READ)
  public Stream<MapResult> run(@Name("statement") String statement, @Name("params") Map<String, Object> params) {
    return tx.execute(statement, params).stream().map(MapResult::new);
  }

  @UserFunction(name = "apoc.text.join")
  public String join(@Name("texts") List<String> texts, @Name("separator") String separator) {
    return String.join(separator, texts);
  }
}
