// javac's own parser as a test oracle: reads a JSON array of Java sources on stdin (a minimal reader:
// strings only) and prints, per source, null when it parses or the first error. Parse only: names
// and types are not resolved, so snippets need not compile.
import com.sun.source.util.JavacTask;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

public class ParseCheck {
  public static void main(String[] args) throws Exception {
    String input = new String(System.in.readAllBytes(), "UTF-8");
    List<String> sources = readStrings(input);
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < sources.size(); i++) {
      String source = sources.get(i);
      DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
      JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Snippet" + i + ".java"), JavaFileObject.Kind.SOURCE) {
        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) { return source; }
      };
      JavacTask task = (JavacTask) compiler.getTask(null, null, diagnostics, List.of("-proc:none"), null, List.of(file));
      task.parse();
      String error = null;
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        if (d.getKind() == Diagnostic.Kind.ERROR) { error = "line " + d.getLineNumber() + ": " + d.getMessage(null); break; }
      }
      if (i > 0) out.append(",");
      out.append(error == null ? "null" : quote(error));
    }
    System.out.println(out.append("]"));
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c == '\n') b.append("\\n");
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static List<String> readStrings(String json) {
    List<String> out = new ArrayList<>();
    int i = json.indexOf('[') + 1;
    while (i < json.length()) {
      char c = json.charAt(i);
      if (c == '"') {
        StringBuilder b = new StringBuilder();
        i++;
        while (json.charAt(i) != '"') {
          char ch = json.charAt(i);
          if (ch == '\\') {
            char e = json.charAt(++i);
            switch (e) {
              case 'n': b.append('\n'); break;
              case 't': b.append('\t'); break;
              case 'r': b.append('\r'); break;
              case 'b': b.append('\b'); break;
              case 'f': b.append('\f'); break;
              case 'u': b.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16)); i += 4; break;
              default: b.append(e);
            }
          } else b.append(ch);
          i++;
        }
        out.add(b.toString());
      }
      i++;
    }
    return out;
  }
}
