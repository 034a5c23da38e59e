#include "core/report/md4c_library.hpp"

#include <dlfcn.h>

namespace cudasync::report {

namespace {

// The symbol from the library, loaded once for the process (never closed), or nullptr.
void* symbol(const char* library, const char* name) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  return handle ? dlsym(handle, name) : nullptr;
}

}  // namespace

MdParse md4c_parse() {
  static const MdParse parse = reinterpret_cast<MdParse>(symbol("libmd4c.so.0", "md_parse"));
  return parse;
}

MdHtml md4c_html() {
  static const MdHtml html = reinterpret_cast<MdHtml>(symbol("libmd4c-html.so.0", "md_html"));
  return html;
}

std::string md4c_missing(const char* library, const char* package) {
  return std::string(library) + " cannot be loaded: the text is shown as written; install " + package +
         " (apt install " + package + ") to have it rendered";
}

}  // namespace cudasync::report
