//! `#[sim_rt::main]` and `#[sim_rt::test]`: argument parsing and expansion.
//!
//! Parsing follows tokio-macros 2.7 (`entry.rs`) argument by argument, with
//! the same checks in the same order and the same messages, so that a program
//! that compiles against tokio compiles against `sim_rt` and one that does
//! not is told the same thing. Only the macro name in the messages differs.
//!
//! The expansion does not build a runtime and `block_on` a future, as tokio's
//! does: it hands a closure that makes the configured `Builder` and a closure
//! that *creates* the body's future to `runtime::__private::run_fresh`, which
//! may call both twice (the determinism check runs an execution twice and
//! compares traces), each time on a fresh thread, so that per-thread state
//! (std's `HashMap` keys, `rand::rng()`) does not carry from the first run to
//! the second. A function with arguments (which `#[test]` does not allow) has
//! its body run by `runtime::__private::run` on the calling thread, or once
//! when the arguments cannot be copied.
//!
//! `#[sim_rt::test]` also takes a synchronous `fn` (tokio's rejects one):
//! its body becomes the async block's, which completes in its first poll,
//! so every file call it makes is on the simulated disk. A file that starts
//! with `use sim_rt::test;` thereby runs every `#[test]` in it in a
//! simulation, including those a macro writes as `#[test]` at its call site
//! (`quickcheck!`, `#[quickcheck]`); not those written by the built-in
//! attribute's full path (`test_case` writes `#[::core::prelude::v1::test]`
//! on a synchronous case), which no import can shadow.
//!
//! On an error the macro still expands to a function as close to the intended
//! one as possible (with a fallback configuration) followed by the
//! `compile_error!`, so that IDEs keep completing inside the body.

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Lit, Meta, Path, Signature, Token, Visibility};

/// Which attribute is being expanded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Main,
    Test,
}

/// The name the user's crate reaches the runtime by: `sim_rt` itself, or
/// `tokio` (the whole-graph package re-exports these attributes as
/// `tokio::main`/`tokio::test`, and the user's crate has no `sim_rt`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    SimRt,
    Tokio,
}

impl Root {
    fn name(self) -> &'static str {
        match self {
            Root::SimRt => "sim_rt",
            Root::Tokio => "tokio",
        }
    }
}

impl Kind {
    /// The name used in error messages, as the user would write it.
    fn macro_name(self, root: Root) -> String {
        let entry = match self {
            Kind::Main => "main",
            Kind::Test => "test",
        };
        format!("{}::{entry}", root.name())
    }

    /// tokio's defaults: `main` is multi-threaded, tests are not.
    fn default_flavor(self) -> Flavor {
        match self {
            Kind::Main => Flavor::MultiThread,
            Kind::Test => Flavor::CurrentThread,
        }
    }
}

/// The `flavor` argument. All flavors run on the one simulation thread; the
/// flavor only selects the `Builder` constructor and which other arguments
/// are allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    CurrentThread,
    MultiThread,
    /// tokio's `LocalRuntime`; built here with `Builder::new_current_thread`
    /// (a simulation is single-threaded, so every task is already local).
    Local,
}

impl Flavor {
    fn parse(s: &str) -> Result<Flavor, String> {
        match s {
            "current_thread" => Ok(Flavor::CurrentThread),
            "multi_thread" => Ok(Flavor::MultiThread),
            "local" => Ok(Flavor::Local),
            "single_thread" => {
                Err("The single threaded runtime flavor is called `current_thread`.".to_string())
            }
            "basic_scheduler" => Err(
                "The `basic_scheduler` runtime flavor has been renamed to `current_thread`."
                    .to_string(),
            ),
            "threaded_scheduler" => Err(
                "The `threaded_scheduler` runtime flavor has been renamed to `multi_thread`."
                    .to_string(),
            ),
            _ => Err(format!(
                "No such runtime flavor `{s}`. The runtime flavors are `current_thread`, `local`, and `multi_thread`."
            )),
        }
    }
}

/// The `unhandled_panic` argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UnhandledPanic {
    Ignore,
    ShutdownRuntime,
}

impl UnhandledPanic {
    fn parse(s: &str) -> Result<UnhandledPanic, String> {
        match s {
            "ignore" => Ok(UnhandledPanic::Ignore),
            "shutdown_runtime" => Ok(UnhandledPanic::ShutdownRuntime),
            _ => Err(format!(
                "No such unhandled panic behavior `{s}`. The unhandled panic behaviors are `ignore` and `shutdown_runtime`."
            )),
        }
    }

    /// The variant of `runtime::UnhandledPanic` to pass to the builder.
    fn variant(self) -> Ident {
        let name = match self {
            UnhandledPanic::Ignore => "Ignore",
            UnhandledPanic::ShutdownRuntime => "ShutdownRuntime",
        };
        Ident::new(name, Span::call_site())
    }
}

/// A validated configuration: what the expansion needs.
struct Config {
    flavor: Flavor,
    worker_threads: Option<usize>,
    start_paused: Option<bool>,
    unhandled_panic: Option<UnhandledPanic>,
    /// tokio's `name`: the runtime's, as `Handle::name` returns it.
    name: Option<String>,
    crate_path: Option<Path>,
}

impl Config {
    /// Used to expand the function anyway when the arguments are invalid.
    const FALLBACK: Config = Config {
        flavor: Flavor::CurrentThread,
        worker_threads: None,
        start_paused: None,
        unhandled_panic: None,
        name: None,
        crate_path: None,
    };
}

/// The arguments as written, each with the span of its value so that a
/// conflict between two of them is reported where it is.
#[derive(Default)]
struct Args {
    flavor: Option<Flavor>,
    worker_threads: Option<(usize, Span)>,
    start_paused: Option<(bool, Span)>,
    unhandled_panic: Option<(UnhandledPanic, Span)>,
    crate_path: Option<Path>,
    /// Accepted for compatibility with tokio (`Builder::name`) and ignored:
    /// a simulated runtime has no threads to name.
    name: Option<String>,
}

const ARGUMENT_NAMES: &str =
    "`flavor`, `worker_threads`, `start_paused`, `crate`, `unhandled_panic`, `name`";

impl Args {
    fn parse(args: TokenStream, kind: Kind, root: Root) -> syn::Result<Args> {
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
        let mut parsed = Args::default();
        for meta in metas {
            match meta {
                Meta::NameValue(nv) => {
                    let key = nv
                        .path
                        .get_ident()
                        .ok_or_else(|| syn::Error::new_spanned(&nv, "Must have specified ident"))?
                        .to_string()
                        .to_lowercase();
                    let lit = match &nv.value {
                        syn::Expr::Lit(syn::ExprLit { lit, .. }) => lit.clone(),
                        expr => return Err(syn::Error::new_spanned(expr, "Must be a literal")),
                    };
                    parsed.set(&key, lit, &nv)?;
                }
                Meta::Path(path) => {
                    let key = path
                        .get_ident()
                        .ok_or_else(|| syn::Error::new_spanned(&path, "Must have specified ident"))?
                        .to_string()
                        .to_lowercase();
                    let macro_name = kind.macro_name(root);
                    let msg = match key.as_str() {
                        "threaded_scheduler" | "multi_thread" => format!(
                            "Set the runtime flavor with #[{macro_name}(flavor = \"multi_thread\")]."
                        ),
                        "basic_scheduler" | "current_thread" | "single_threaded" => format!(
                            "Set the runtime flavor with #[{macro_name}(flavor = \"current_thread\")]."
                        ),
                        "flavor" | "worker_threads" | "start_paused" | "crate"
                        | "unhandled_panic" | "name" => {
                            format!("The `{key}` attribute requires an argument.")
                        }
                        _ => unknown_argument(&key),
                    };
                    return Err(syn::Error::new_spanned(path, msg));
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "Unknown attribute inside the macro",
                    ))
                }
            }
        }
        Ok(parsed)
    }

    /// Records `key = lit`, rejecting a repeated key before looking at the
    /// value (as tokio does).
    fn set(&mut self, key: &str, lit: Lit, nv: &syn::MetaNameValue) -> syn::Result<()> {
        let span = lit.span();
        let repeated = match key {
            "flavor" => self.flavor.is_some(),
            "worker_threads" => self.worker_threads.is_some(),
            "start_paused" => self.start_paused.is_some(),
            "crate" => self.crate_path.is_some(),
            "unhandled_panic" => self.unhandled_panic.is_some(),
            "name" => self.name.is_some(),
            "core_threads" => {
                let msg = "Attribute `core_threads` is renamed to `worker_threads`";
                return Err(syn::Error::new_spanned(nv, msg));
            }
            _ => return Err(syn::Error::new_spanned(nv, unknown_argument(key))),
        };
        if repeated {
            return Err(syn::Error::new(
                span,
                format!("`{key}` set multiple times."),
            ));
        }
        match key {
            "flavor" => {
                let s = lit_str(lit, span, key)?;
                self.flavor = Some(Flavor::parse(&s).map_err(|msg| syn::Error::new(span, msg))?);
            }
            "worker_threads" => {
                let n = lit_int(lit, span, key)?;
                if n == 0 {
                    return Err(syn::Error::new(span, "`worker_threads` may not be 0."));
                }
                self.worker_threads = Some((n, span));
            }
            "start_paused" => self.start_paused = Some((lit_bool(lit, span, key)?, span)),
            "crate" => self.crate_path = Some(lit_path(lit, span, key)?),
            "unhandled_panic" => {
                let s = lit_str(lit, span, key)?;
                let behavior =
                    UnhandledPanic::parse(&s).map_err(|msg| syn::Error::new(span, msg))?;
                self.unhandled_panic = Some((behavior, span));
            }
            "name" => self.name = Some(lit_str(lit, span, key)?),
            _ => unreachable!("keys were checked above"),
        }
        Ok(())
    }

    /// Checks the arguments against each other (tokio's `Configuration::build`).
    fn validate(self, kind: Kind, root: Root) -> syn::Result<Config> {
        let flavor = self.flavor.unwrap_or(kind.default_flavor());
        let macro_name = kind.macro_name(root);
        let single = matches!(flavor, Flavor::CurrentThread | Flavor::Local);

        if let (true, Some((_, span))) = (single, self.worker_threads) {
            let msg = format!(
                "The `worker_threads` option requires the `multi_thread` runtime flavor. Use `#[{macro_name}(flavor = \"multi_thread\")]`"
            );
            return Err(syn::Error::new(span, msg));
        }
        for (option, span) in [
            ("start_paused", self.start_paused.map(|(_, span)| span)),
            (
                "unhandled_panic",
                self.unhandled_panic.map(|(_, span)| span),
            ),
        ] {
            if let (false, Some(span)) = (single, span) {
                let msg = format!(
                    "The `{option}` option requires the `current_thread` runtime flavor. Use `#[{macro_name}(flavor = \"current_thread\")]`"
                );
                return Err(syn::Error::new(span, msg));
            }
        }

        Ok(Config {
            flavor,
            worker_threads: self.worker_threads.map(|(n, _)| n),
            start_paused: self.start_paused.map(|(b, _)| b),
            unhandled_panic: self.unhandled_panic.map(|(p, _)| p),
            name: self.name,
            crate_path: self.crate_path,
        })
    }
}

fn unknown_argument(key: &str) -> String {
    format!("Unknown attribute {key} is specified; expected one of: {ARGUMENT_NAMES}.")
}

fn lit_int(lit: Lit, span: Span, field: &str) -> syn::Result<usize> {
    match lit {
        Lit::Int(lit) => lit.base10_parse::<usize>().map_err(|e| {
            syn::Error::new(
                span,
                format!("Failed to parse value of `{field}` as integer: {e}"),
            )
        }),
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as integer."),
        )),
    }
}

fn lit_str(lit: Lit, span: Span, field: &str) -> syn::Result<String> {
    match lit {
        Lit::Str(s) => Ok(s.value()),
        Lit::Verbatim(s) => Ok(s.to_string()),
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as string."),
        )),
    }
}

fn lit_path(lit: Lit, span: Span, field: &str) -> syn::Result<Path> {
    match lit {
        Lit::Str(s) => s.parse::<Path>().map_err(|_| {
            syn::Error::new(
                span,
                format!(
                    "Failed to parse value of `{field}` as path: \"{}\"",
                    s.value()
                ),
            )
        }),
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as path."),
        )),
    }
}

fn lit_bool(lit: Lit, span: Span, field: &str) -> syn::Result<bool> {
    match lit {
        Lit::Bool(b) => Ok(b.value),
        _ => Err(syn::Error::new(
            span,
            format!("Failed to parse value of `{field}` as bool."),
        )),
    }
}

/// Checks the function and the arguments together.
///
/// `#[sim_rt::test]` alone also takes a synchronous function: its body runs
/// as the simulation's main future, which it completes in its first poll
/// (see the attribute's docs for why). `#[sim_rt::main]` and the
/// whole-graph package's `#[tokio::test]` reject one, as tokio does.
fn configure(item: &ItemFn, args: TokenStream, kind: Kind, root: Root) -> syn::Result<Config> {
    let sync_allowed = kind == Kind::Test && root == Root::SimRt;
    if item.sig.asyncness.is_none() && !sync_allowed {
        let msg = "the `async` keyword is missing from the function declaration";
        return Err(syn::Error::new_spanned(item.sig.fn_token, msg));
    }
    if kind == Kind::Test && !item.sig.inputs.is_empty() {
        let msg = "the test function cannot accept arguments";
        return Err(syn::Error::new_spanned(&item.sig.inputs, msg));
    }
    Args::parse(args, kind, root)?.validate(kind, root)
}

/// Entry point of `#[sim_rt::main]`.
pub(crate) fn main(args: TokenStream, item: TokenStream, root: Root) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => return with_error(item, e),
    };
    let config = if item.sig.ident == "main" && !item.sig.inputs.is_empty() {
        let msg = "the main function cannot accept arguments";
        Err(syn::Error::new_spanned(&item.sig.ident, msg))
    } else {
        configure(&item, args, Kind::Main, root)
    };
    match config {
        Ok(config) => expand(item, Kind::Main, config, root),
        Err(e) => with_error(expand(item, Kind::Main, Config::FALLBACK, root), e),
    }
}

/// Entry point of `#[sim_rt::test]`.
pub(crate) fn test(args: TokenStream, item: TokenStream, root: Root) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => return with_error(item, e),
    };
    let config = match item.attrs().find(|attr| is_test_attribute(attr)) {
        Some(attr) => {
            let msg = "second test attribute is supplied, consider removing or changing the order of your test attributes";
            Err(syn::Error::new_spanned(attr, msg))
        }
        None => configure(&item, args, Kind::Test, root),
    };
    match config {
        Ok(config) => expand(item, Kind::Test, config, root),
        Err(e) => with_error(expand(item, Kind::Test, Config::FALLBACK, root), e),
    }
}

fn with_error(mut tokens: TokenStream, error: syn::Error) -> TokenStream {
    tokens.extend(error.into_compile_error());
    tokens
}

/// Whether `attr` is `#[test]`, `#[core::prelude::*::test]` or
/// `#[std::prelude::*::test]` (with or without a leading `::`).
fn is_test_attribute(attr: &Attribute) -> bool {
    let Meta::Path(path) = &attr.meta else {
        return false;
    };
    if path.segments.iter().any(|s| !s.arguments.is_none()) {
        return false;
    }
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [test] => path.leading_colon.is_none() && test == "test",
        [root, prelude, _edition, test] => {
            (root == "core" || root == "std") && prelude == "prelude" && test == "test"
        }
        _ => false,
    }
}

/// Writes the function back out, with its body run by the simulation.
fn expand(mut item: ItemFn, kind: Kind, config: Config, root: Root) -> TokenStream {
    item.sig.asyncness = None;

    // rustc reports a mismatch between the body and the return type at the
    // tokens the mismatching expression carries; giving the `run` call the
    // span of the body's last statement puts the error there, not on the
    // attribute.
    let (last_start, last_end) = last_statement_spans(&item.body);

    let crate_path = match &config.crate_path {
        Some(path) => path.to_token_stream(),
        None => {
            let span = Span::call_site().located_at(last_start);
            let name = Ident::new(root.name(), span);
            quote_spanned!(span=> ::#name)
        }
    };

    let constructor = match config.flavor {
        Flavor::CurrentThread | Flavor::Local => quote!(new_current_thread),
        Flavor::MultiThread => quote!(new_multi_thread),
    };
    let mut settings = quote!(.enable_all());
    if config.flavor == Flavor::Local {
        settings.extend(quote!(.__local()));
    }
    if let Some(n) = config.worker_threads {
        settings.extend(quote!(.worker_threads(#n)));
    }
    if let Some(paused) = config.start_paused {
        settings.extend(quote!(.start_paused(#paused)));
    }
    if let Some(name) = &config.name {
        settings.extend(quote!(.name(#name)));
    }
    if let Some(behavior) = config.unhandled_panic {
        let variant = behavior.variant();
        settings.extend(quote!(.unhandled_panic(#crate_path::runtime::UnhandledPanic::#variant)));
    }

    // Mixed-site hygiene: the body cannot see (or be shadowed by) these.
    let builder = Ident::new("builder", Span::mixed_site());
    let b = Ident::new("b", Span::mixed_site());

    // A synchronous test's body (see `configure`) goes in the same async
    // block: with no `.await` in it, it runs to its end in the first poll.
    let mut body = Group::new(Delimiter::Brace, item.body.clone());
    body.set_span(item.brace_span);
    let (builder_binding, run) = if item.sig.inputs.is_empty() {
        // No arguments: the builder and the body can be made on any thread,
        // so under the determinism check each run gets a fresh one.
        let run = quote_spanned! {last_end=>
            #crate_path::runtime::__private::run_fresh(#builder, move || async move #body)
        };
        (quote!(#builder), run)
    } else if inputs_are_copy(&item.sig) {
        // Every call of the closure builds a new body future from copies of
        // the arguments, so the runtime may run it twice.
        let run = quote_spanned! {last_end=>
            #crate_path::runtime::__private::run(#builder(), move || async move #body)
        };
        (quote!(#builder), run)
    } else {
        // The arguments move into the body's future, which can therefore be
        // built once only: run it once, without the determinism check.
        let run = quote_spanned! {last_end=>
            #crate_path::runtime::Builder::build(&mut #builder())
                .expect("Failed building the Runtime")
                .block_on(async move #body)
        };
        (quote!(#builder), run)
    };

    let generated_attrs = match kind {
        Kind::Test => quote!(#[::core::prelude::v1::test]),
        Kind::Main => quote!(),
    };

    let ItemFn {
        outer_attrs,
        vis,
        sig,
        inner_attrs,
        ..
    } = item;
    // Inner attributes (`#![allow(..)]`) are not allowed on the async block
    // the body becomes; lift them onto the function, as syn does.
    let inner_attrs = inner_attrs.into_iter().map(|mut attr| {
        attr.style = syn::AttrStyle::Outer;
        attr
    });

    quote! {
        #(#outer_attrs)*
        #(#inner_attrs)*
        #generated_attrs
        #vis #sig {
            let #builder_binding = || {
                let mut #b = #crate_path::runtime::Builder::#constructor();
                #b #settings;
                #b
            };
            #run
        }
    }
}

/// Whether every argument (receiver included) is of a type that is `Copy`
/// whatever the program defines: a shared reference, a primitive, or a
/// tuple, array or raw pointer of those. Then the body can be built again
/// from copies of the arguments.
fn inputs_are_copy(sig: &Signature) -> bool {
    sig.inputs.iter().all(|input| match input {
        syn::FnArg::Receiver(receiver) => is_copy_type(&receiver.ty),
        syn::FnArg::Typed(typed) => is_copy_type(&typed.ty),
    })
}

fn is_copy_type(ty: &syn::Type) -> bool {
    use syn::Type;
    const PRIMITIVES: &[&str] = &[
        "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
        "i128", "isize", "f32", "f64",
    ];
    match ty {
        Type::Reference(r) => r.mutability.is_none(),
        Type::Ptr(_) | Type::Never(_) => true,
        Type::Tuple(t) => t.elems.iter().all(is_copy_type),
        Type::Array(a) => is_copy_type(&a.elem),
        Type::Paren(p) => is_copy_type(&p.elem),
        Type::Group(g) => is_copy_type(&g.elem),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 1
                && p.path.segments[0].arguments.is_none()
                && PRIMITIVES
                    .iter()
                    .any(|name| p.path.segments[0].ident == name)
        }
        _ => false,
    }
}

/// The spans of the first and last token of the body's last statement (or of
/// its last tokens if it does not end in a statement).
fn last_statement_spans(body: &TokenStream) -> (Span, Span) {
    let tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    let is_semi = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ';');
    let before_last = tokens.len().saturating_sub(1);
    let start = tokens[..before_last]
        .iter()
        .rposition(is_semi)
        .map_or(0, |i| i + 1);
    match (tokens.get(start), tokens.last()) {
        (Some(first), Some(last)) => (first.span(), last.span()),
        _ => (Span::call_site(), Span::call_site()),
    }
}

/// A function item whose body is kept as tokens: parsing the statements is
/// not needed and would make every syntax error in the body an error of the
/// attribute instead of rustc's own.
struct ItemFn {
    outer_attrs: Vec<Attribute>,
    vis: Visibility,
    sig: Signature,
    inner_attrs: Vec<Attribute>,
    /// The tokens between the braces, after the inner attributes.
    body: TokenStream,
    /// The span of the braces around the body.
    brace_span: Span,
}

impl ItemFn {
    fn attrs(&self) -> impl Iterator<Item = &Attribute> {
        self.outer_attrs.iter().chain(&self.inner_attrs)
    }
}

impl Parse for ItemFn {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let outer_attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let sig = input.parse()?;
        let content;
        let brace = syn::braced!(content in input);
        let inner_attrs = content.call(Attribute::parse_inner)?;
        let body = content.parse()?;
        Ok(ItemFn {
            outer_attrs,
            vis,
            sig,
            inner_attrs,
            body,
            brace_span: brace.span.join(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_test(args: &str, item: &str) -> String {
        test(args.parse().unwrap(), item.parse().unwrap(), Root::SimRt).to_string()
    }

    fn expand_main(args: &str, item: &str) -> String {
        main(args.parse().unwrap(), item.parse().unwrap(), Root::SimRt).to_string()
    }

    fn assert_error(out: &str, msg: &str) {
        assert!(out.contains("compile_error"), "no error in {out}");
        assert!(out.contains(msg), "expected {msg:?} in {out}");
    }

    #[test]
    fn default_test_is_current_thread_with_test_attribute() {
        let out = expand_test("", "async fn t() { assert!(true); }");
        assert!(out.contains(":: core :: prelude :: v1 :: test"), "{out}");
        assert!(out.contains("new_current_thread"), "{out}");
        assert!(
            out.contains(":: sim_rt :: runtime :: __private :: run"),
            "{out}"
        );
        assert!(!out.contains("async fn"), "{out}");
        assert!(!out.contains("compile_error"), "{out}");
    }

    /// A synchronous `fn` is a test like an async one: its body is the
    /// async block's, its attributes and return type are kept, and the
    /// test attribute is the built-in one by its full path (so a file that
    /// imports `sim_rt::test` as `test` does not expand it again).
    #[test]
    fn a_synchronous_test_runs_its_body_in_a_simulation() {
        let out = expand_test(
            "start_paused = true",
            "/// doc\n#[should_panic(expected = \"x\")] #[ignore] \
             fn t() -> std::io::Result<()> { #![allow(unused)] std::fs::write(\"/a\", b\"\")?; Ok(()) }",
        );
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("# [doc = \" doc\"]"), "{out}");
        assert!(out.contains("# [should_panic (expected = \"x\")]"), "{out}");
        assert!(out.contains("# [ignore]"), "{out}");
        assert!(out.contains("# [allow (unused)]"), "{out}");
        assert!(
            out.contains(
                "# [:: core :: prelude :: v1 :: test] fn t () -> std :: io :: Result < () >"
            ),
            "{out}"
        );
        assert!(out.contains(". start_paused (true)"), "{out}");
        assert!(
            out.contains(
                "__private :: run_fresh (builder , move || async move { std :: fs :: write"
            ),
            "{out}"
        );
    }

    #[test]
    fn the_tokio_root_names_tokio_in_paths_and_messages() {
        let out = test(
            "".parse().unwrap(),
            "async fn t() {}".parse().unwrap(),
            Root::Tokio,
        )
        .to_string();
        assert!(
            out.contains(":: tokio :: runtime :: __private :: run"),
            "{out}"
        );
        assert!(!out.contains("sim_rt"), "{out}");
        let out = main(
            "multi_thread".parse().unwrap(),
            "async fn main() {}".parse().unwrap(),
            Root::Tokio,
        )
        .to_string();
        assert_error(
            &out,
            "Set the runtime flavor with #[tokio::main(flavor = \\\"multi_thread\\\")].",
        );
    }

    #[test]
    fn default_main_is_multi_thread() {
        let out = expand_main("", "async fn main() {}");
        assert!(out.contains("new_multi_thread"), "{out}");
        assert!(!out.contains("prelude"), "{out}");
    }

    #[test]
    fn all_settings_are_passed_to_the_builder() {
        let out = expand_test(
            "flavor = \"current_thread\", start_paused = true, unhandled_panic = \"shutdown_runtime\", crate = \"tokio\"",
            "async fn t() {}",
        );
        assert!(
            out.contains("tokio :: runtime :: Builder :: new_current_thread"),
            "{out}"
        );
        assert!(out.contains(". start_paused (true)"), "{out}");
        assert!(
            out.contains(
                ". unhandled_panic (tokio :: runtime :: UnhandledPanic :: ShutdownRuntime)"
            ),
            "{out}"
        );
        let out = expand_main(
            "flavor = \"multi_thread\", worker_threads = 4",
            "async fn f() {}",
        );
        assert!(out.contains(". worker_threads (4usize)"), "{out}");
        let out = expand_main("flavor = \"local\", name = \"x\"", "async fn main() {}");
        assert!(out.contains("new_current_thread"), "{out}");
    }

    #[test]
    fn attributes_are_kept_and_inner_ones_lifted() {
        let out = expand_test(
            "",
            "/// doc\n#[should_panic(expected = \"x\")] #[ignore] async fn t() { #![allow(unused)] }",
        );
        assert!(out.contains("# [doc = \" doc\"]"), "{out}");
        assert!(out.contains("# [should_panic (expected = \"x\")]"), "{out}");
        assert!(out.contains("# [ignore]"), "{out}");
        assert!(out.contains("# [allow (unused)]"), "{out}");
        assert!(!out.contains("# !"), "{out}");
    }

    #[test]
    fn functions_without_arguments_run_each_check_run_on_a_fresh_thread() {
        for out in [
            expand_test("", "async fn t() {}"),
            expand_main("", "async fn main() {}"),
        ] {
            assert!(
                out.contains("__private :: run_fresh (builder , move ||"),
                "{out}"
            );
            assert!(out.contains("let builder = || {"), "{out}");
        }
    }

    #[test]
    fn functions_with_copy_arguments_can_rerun_their_body() {
        for sig in [
            "async fn run(&self, x: u32, y: &str, (a, b): (u8, [bool; 2]), p: *const u8)",
            "async fn run(self: &Self, mut x: usize)",
        ] {
            let out = expand_main("", &format!("{sig} {{}}"));
            assert!(out.contains("__private :: run (builder ()"), "{out}");
        }
    }

    #[test]
    fn functions_with_other_arguments_run_their_body_once() {
        for sig in [
            "async fn run(x: String)",
            "async fn run(&mut self)",
            "async fn run(self)",
            "async fn run(x: &mut u32)",
            "async fn run(x: std::primitive::u32)",
            "async fn run(x: impl Copy)",
        ] {
            let out = expand_main("", &format!("{sig} {{}}"));
            assert!(!out.contains("__private"), "{out}");
            assert!(out.contains("Builder :: build (& mut builder ())"), "{out}");
            assert!(out.contains(". block_on (async move"), "{out}");
        }
    }

    #[test]
    fn errors() {
        let cases: &[(&str, &str, &str)] = &[
            ("", "async fn t(x: u32) {}", "the test function cannot accept arguments"),
            ("", "#[test] async fn t() {}", "second test attribute is supplied"),
            ("worker_threads = 2", "async fn t() {}",
             "The `worker_threads` option requires the `multi_thread` runtime flavor. Use `#[sim_rt::test(flavor = \\\"multi_thread\\\")]`"),
            ("flavor = \"multi_thread\", start_paused = true", "async fn t() {}",
             "The `start_paused` option requires the `current_thread` runtime flavor."),
            ("flavor = \"multi_thread\", unhandled_panic = \"ignore\"", "async fn t() {}",
             "The `unhandled_panic` option requires the `current_thread` runtime flavor."),
            ("flavor = \"multi_thread\", worker_threads = 0", "async fn t() {}", "`worker_threads` may not be 0."),
            ("flavor = \"x\"", "async fn t() {}", "No such runtime flavor `x`."),
            ("flavor = \"basic_scheduler\"", "async fn t() {}", "has been renamed to `current_thread`"),
            ("flavor = 1", "async fn t() {}", "Failed to parse value of `flavor` as string."),
            ("flavor = \"current_thread\", flavor = \"current_thread\"", "async fn t() {}", "`flavor` set multiple times."),
            ("start_paused = 1", "async fn t() {}", "Failed to parse value of `start_paused` as bool."),
            ("unhandled_panic = \"abort\"", "async fn t() {}", "No such unhandled panic behavior `abort`."),
            ("crate = \"a b\"", "async fn t() {}", "Failed to parse value of `crate` as path: \\\"a b\\\""),
            ("core_threads = 2", "async fn t() {}", "Attribute `core_threads` is renamed to `worker_threads`"),
            ("foo = 2", "async fn t() {}", "Unknown attribute foo is specified; expected one of: `flavor`, `worker_threads`, `start_paused`, `crate`, `unhandled_panic`, `name`."),
            ("multi_thread", "async fn t() {}", "Set the runtime flavor with #[sim_rt::test(flavor = \\\"multi_thread\\\")]."),
            ("start_paused", "async fn t() {}", "The `start_paused` attribute requires an argument."),
            ("flavor = x", "async fn t() {}", "Must be a literal"),
        ];
        for (args, item, msg) in cases {
            assert_error(&expand_test(args, item), msg);
        }
        assert_error(
            &expand_main("", "fn main() {}"),
            "the `async` keyword is missing from the function declaration",
        );
        assert_error(
            &test(
                "".parse().unwrap(),
                "fn t() {}".parse().unwrap(),
                Root::Tokio,
            )
            .to_string(),
            "the `async` keyword is missing from the function declaration",
        );
        assert_error(
            &expand_test("", "fn t(x: u32) {}"),
            "the test function cannot accept arguments",
        );
        assert_error(
            &expand_test("", "#[test] fn t() {}"),
            "second test attribute is supplied",
        );
        assert_error(
            &expand_main("", "async fn main(x: u32) {}"),
            "the main function cannot accept arguments",
        );
        assert_error(
            &expand_main("start_paused = true", "async fn main() {}"),
            "The `start_paused` option requires the `current_thread` runtime flavor. Use `#[sim_rt::main(flavor = \\\"current_thread\\\")]`",
        );
    }

    #[test]
    fn an_error_still_expands_the_function() {
        let out = expand_test("foo = 1", "async fn t() { let x = 1; }");
        assert!(out.contains("fn t ()"), "{out}");
        assert!(out.contains("let x = 1"), "{out}");
    }

    #[test]
    fn test_attributes_are_recognised() {
        for attr in [
            "#[test]",
            "#[core::prelude::v1::test]",
            "#[::std::prelude::rust_2021::test]",
        ] {
            let attrs = syn::Attribute::parse_outer.parse_str(attr).unwrap();
            assert!(is_test_attribute(&attrs[0]), "{attr}");
        }
        for attr in ["#[ignore]", "#[::test]", "#[foo::test]", "#[test(x)]"] {
            let attrs = syn::Attribute::parse_outer.parse_str(attr).unwrap();
            assert!(!is_test_attribute(&attrs[0]), "{attr}");
        }
    }
}
