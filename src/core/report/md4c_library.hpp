#pragma once
// md4c (Debian's libmd4c0 and libmd4c-html0), loaded when a text is first rendered, as
// libcuda.so.1 is: the binary links nothing beyond the C++ runtime (tests/package: the ldd test),
// and Debian ships md4c as shared libraries only. The .deb recommends both packages; without
// them `explain` shows the Markdown as written, wrapped to the terminal, and says what to install.
#include <md4c-html.h>
#include <md4c.h>

#include <string>

namespace cudasync::report {

using MdParse = decltype(&md_parse);
using MdHtml = decltype(&md_html);

// md_parse from libmd4c.so.0, or nullptr when it cannot be loaded.
MdParse md4c_parse();
// md_html from libmd4c-html.so.0, or nullptr when it cannot be loaded.
MdHtml md4c_html();

// What a person is told when a library is missing: "libmd4c.so.0 cannot be loaded (...): ...".
std::string md4c_missing(const char* library, const char* package);

}  // namespace cudasync::report
