//! The program's static data (constants, closed blocks, literal lists) as values: built once
//! per machine, outside any run, so they are untracked by the collector and cache models.

use crate::heap::Born;
use crate::ir::StaticValue;
use crate::value::*;
use std::rc::Rc;

pub(super) fn materialize(v: &StaticValue) -> Value {
    match v {
        StaticValue::Imm(i) => Value::Int(*i),
        StaticValue::Float(f) => Value::of_float(*f),
        StaticValue::Str(s) => StrBlock::constant(s),
        StaticValue::Block { tag, fields } => Value::Block(Rc::new(Block {
            tag: *tag,
            fields: fields.iter().map(materialize).collect(),
            born: Born::untracked(),
        })),
        StaticValue::List(items) => items.iter().rev().fold(Value::Int(0), |tail, h| {
            Value::Cons(Rc::new(ConsCell {
                head: materialize(h),
                tail,
                born: Born::untracked(),
            }))
        }),
        StaticValue::Record { flat, fields } => Value::Mut(Rc::new(MutBlock {
            tag: 0,
            flat: *flat,
            fields: std::cell::RefCell::new(fields.iter().map(materialize).collect()),
            born: Born::untracked(),
        })),
        StaticValue::Exn(id) => Value::Exn(Rc::new(ExnValue {
            id: *id,
            args: Box::new([]),
            born: Born::untracked(),
        })),
    }
}
