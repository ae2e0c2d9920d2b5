//! Checking that the compiler kept what a template claims to stress: the program's assembly
//! (`ocamlopt -S`) must still contain the calls, instructions or allocations its front matter
//! lists. A template the compiler optimised away is an error, not a data point.

use crate::template::AsmCheck;
use regex::Regex;
use serde::{Deserialize, Serialize};

const MODULE_PREFIX: &str = "camlBench_program__";

/// One check's outcome, kept in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckOutcome {
    pub check: String,
    pub found: usize,
    pub min: usize,
    pub ok: bool,
    pub message: Option<String>,
}

/// The instructions of one OCaml function: from its label to the end of its `.size` or
/// `.cfi_endproc`, for every function whose symbol is `camlBench_program__<name>_<n>`.
fn function_body<'a>(assembly: &'a str, function: &str) -> Vec<&'a str> {
    let label = Regex::new(&format!(
        r"^{MODULE_PREFIX}{}_\d+:",
        regex::escape(function)
    ))
    .expect("valid regex");
    let mut body = Vec::new();
    let mut inside = false;
    for line in assembly.lines() {
        if label.is_match(line) {
            inside = true;
            continue;
        }
        if inside {
            let t = line.trim();
            if t.starts_with(".cfi_endproc") || t.starts_with(".size") {
                inside = false;
                continue;
            }
            body.push(t);
        }
    }
    body
}

fn mnemonic(line: &str) -> Option<&str> {
    let first = line.split_whitespace().next()?;
    (!first.starts_with('.') && !first.ends_with(':')).then_some(first)
}

/// Allocation on amd64 decrements the young pointer kept in r15, or calls the runtime's
/// allocator. (`caml_call_gc` is no evidence: 4.13 emits it at every loop's poll point.)
fn allocates(line: &str) -> bool {
    (line.starts_with("sub") && line.ends_with("%r15")) || line.contains("caml_alloc")
}

/// Drops the lines of `body` up to and including the first whose mnemonic matches `after`
/// (all of them when none does).
fn drop_through_first(body: &mut Vec<&str>, after: &str) -> Result<(), regex::Error> {
    let re = Regex::new(&format!("^(?:{after})$"))?;
    let start = body
        .iter()
        .position(|l| mnemonic(l).is_some_and(|m| re.is_match(m)))
        .map_or(body.len(), |i| i + 1);
    body.drain(..start);
    Ok(())
}

/// The outcome of a check whose regex does not compile.
fn bad_pattern(check: String, min: usize, e: regex::Error) -> CheckOutcome {
    CheckOutcome {
        check,
        found: 0,
        min,
        ok: false,
        message: Some(format!("bad pattern: {e}")),
    }
}

/// Runs one check on a program's assembly. Only amd64 assembly is understood: on other
/// architectures the check passes with a note rather than failing every program.
pub fn run_check(check: &AsmCheck, assembly: &str, architecture: &str) -> CheckOutcome {
    let mut body = function_body(assembly, &check.function);
    let function_found = !body.is_empty();
    if let Some(after) = &check.after {
        if let Err(e) = drop_through_first(&mut body, after) {
            return bad_pattern(format!("after /{after}/"), check.min, e);
        }
    }
    let (what, found) = if let Some(callee) = &check.calls {
        let target = Regex::new(&format!(
            r"\b{MODULE_PREFIX}{}_\d+\b",
            regex::escape(callee)
        ))
        .expect("valid regex");
        let n = body
            .iter()
            .filter(|l| matches!(mnemonic(l), Some("call" | "callq" | "jmp")) && target.is_match(l))
            .count();
        (format!("calls to `{callee}` in `{}`", check.function), n)
    } else if let Some((pattern, whole)) = check
        .pattern
        .as_ref()
        .map(|p| (format!("^(?:{p})$"), false))
        .or_else(|| check.instruction.clone().map(|p| (p, true)))
    {
        let shown = check.pattern.as_ref().or(check.instruction.as_ref());
        let shown = shown.map_or("", String::as_str);
        match Regex::new(&pattern) {
            Ok(re) => {
                let n = body
                    .iter()
                    .filter(|l| mnemonic(l).is_some_and(|m| re.is_match(if whole { l } else { m })))
                    .count();
                (
                    format!("instructions matching /{shown}/ in `{}`", check.function),
                    n,
                )
            }
            Err(e) => return bad_pattern(format!("pattern /{shown}/"), check.min, e),
        }
    } else {
        let n = body.iter().filter(|l| allocates(l)).count();
        (format!("allocations in `{}`", check.function), n)
    };
    let what = match &check.after {
        Some(after) => format!("{what} past its first /{after}/"),
        None => what,
    };
    if architecture != "amd64" {
        return CheckOutcome {
            check: what,
            found,
            min: check.min,
            ok: true,
            message: Some(format!(
                "not checked: assembly checks know amd64, not {architecture}"
            )),
        };
    }
    let within_max = check.max.is_none_or(|max| found <= max);
    let ok = function_found && found >= check.min && within_max;
    let message = (!ok).then(|| {
        let base = if !function_found {
            format!(
                "no function `{}` in the assembly: it was inlined or removed",
                check.function
            )
        } else if !within_max {
            format!(
                "expected at most {} {what}, found {found}",
                check.max.unwrap_or(0)
            )
        } else {
            format!("expected at least {} {what}, found {found}", check.min)
        };
        match &check.why {
            Some(why) => format!("{base} ({why})"),
            None => base,
        }
    });
    CheckOutcome {
        check: what,
        found,
        min: check.min,
        ok,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASM: &str = "\t.globl\tcamlBench_program__fapp_82\ncamlBench_program__fapp_82:\n\t.cfi_startproc\n\tsubq\t$8, %rsp\n\tcall\tcamlBench_program__id_80@PLT\n\tcall\tcamlBench_program__id_80@PLT\n\tleaq\t-2(%rax), %rax\n\tsubq\t$24, %r15\n\tjmp\tcamlBench_program__fapp_82\n\t.cfi_endproc\n\t.size camlBench_program__fapp_82, .-camlBench_program__fapp_82\n";

    fn check(calls: Option<&str>, pattern: Option<&str>, allocates: bool, min: usize) -> AsmCheck {
        AsmCheck {
            function: "fapp".into(),
            calls: calls.map(str::to_string),
            pattern: pattern.map(str::to_string),
            instruction: None,
            after: None,
            allocates,
            min,
            max: None,
            why: Some("mark id [@inline never]".into()),
        }
    }

    #[test]
    fn counts_calls_instructions_and_allocations() {
        assert_eq!(
            run_check(&check(Some("id"), None, false, 2), ASM, "amd64").found,
            2
        );
        assert!(run_check(&check(Some("id"), None, false, 2), ASM, "amd64").ok);
        assert_eq!(
            run_check(&check(None, Some("leaq?|addq?"), false, 1), ASM, "amd64").found,
            1
        );
        assert!(run_check(&check(None, None, true, 1), ASM, "amd64").ok);
    }

    #[test]
    fn an_instruction_check_sees_the_operands() {
        let frame = AsmCheck {
            instruction: Some(r"subq\s+\$\d+, %rsp".into()),
            ..check(None, None, false, 1)
        };
        assert_eq!(run_check(&frame, ASM, "amd64").found, 1);
        // The mnemonic alone (`subq`) also matches the allocation's `subq $24, %r15`.
        assert_eq!(
            run_check(&check(None, Some("subq"), false, 1), ASM, "amd64").found,
            2
        );
        let none = AsmCheck {
            instruction: Some("caml_apply2".into()),
            ..check(None, None, false, 1)
        };
        assert!(!run_check(&none, ASM, "amd64").ok);
    }

    #[test]
    fn an_after_check_counts_only_past_its_instruction() {
        // The calls come before the `leaq`, the allocation's `subq` after it.
        let past_lea = |pattern: &str| AsmCheck {
            after: Some("leaq".into()),
            ..check(None, Some(pattern), false, 1)
        };
        assert_eq!(run_check(&past_lea("call"), ASM, "amd64").found, 0);
        assert_eq!(run_check(&past_lea("subq"), ASM, "amd64").found, 1);
        // Nothing matches `imulq`: nothing is past it.
        let past_imul = AsmCheck {
            after: Some("imulq".into()),
            ..check(None, Some("subq"), false, 1)
        };
        assert!(!run_check(&past_imul, ASM, "amd64").ok);
    }

    #[test]
    fn the_poll_points_gc_call_is_not_an_allocation() {
        let asm = ASM.replace("\tsubq\t$24, %r15\n", "\tcall\tcaml_call_gc@PLT\n");
        assert_eq!(
            run_check(&check(None, None, true, 1), &asm, "amd64").found,
            0
        );
        let nothing = AsmCheck {
            max: Some(0),
            min: 0,
            ..check(None, None, true, 0)
        };
        assert!(run_check(&nothing, &asm, "amd64").ok);
        let out = run_check(&nothing, ASM, "amd64");
        assert!(!out.ok && out.message.unwrap().contains("at most 0"));
    }

    #[test]
    fn a_failed_check_says_why() {
        let out = run_check(&check(Some("id"), None, false, 4), ASM, "amd64");
        assert!(!out.ok);
        let msg = out.message.unwrap();
        assert!(
            msg.contains("at least 4")
                && msg.contains("found 2")
                && msg.contains("[@inline never]"),
            "{msg}"
        );
        let gone = AsmCheck {
            function: "nothere".into(),
            ..check(Some("id"), None, false, 1)
        };
        assert!(run_check(&gone, ASM, "amd64")
            .message
            .unwrap()
            .contains("inlined or removed"));
    }
}
